// Sessions on PostgreSQL across processes: four writers on one session, a holder killed with SIGKILL, a writer fenced off.
import { rm } from "node:fs/promises";
import { hostname } from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openPostgres, PgSessionStore } from "../../src/postgres/index.js";
import type { Database } from "../../src/postgres/database.js";
import Anthropic from "@anthropic-ai/sdk";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { defineTool } from "../../src/tools/define.js";
import { startScriptedModel } from "../../src/testing/index.js";
import { TEST_AGENT } from "../helpers/turn.js";
import { databaseUnavailable, newTestSchema, openTestDatabase, withTestClient, type TestDatabase, type TestSchema } from "../helpers/pg.js";
import { nextRequestProblems } from "../helpers/session-validity.js";
import { startChild, type Child } from "./child-process.js";
import { user } from "./session-builders.js";
import { tempDir } from "../helpers/temp-dir.js";

const unavailable = await databaseUnavailable();
const KEY = "agent:main:shared";
const PROCESSES = 4;
const TURNS = 25;

/** Resolves once the child's stdout matches `pattern`; rejects if it exits first. */
async function printed(child: Child, pattern: RegExp): Promise<string> {
  for (;;) {
    const match = pattern.exec(child.stdout());
    if (match) return match[0];
    const exited = await Promise.race([child.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20))]);
    if (exited && !pattern.test(child.stdout())) throw new Error(`child exited before printing ${pattern}: ${(await child.exited).stderr}`);
  }
}

/** The "<tag> turn <n>" a message belongs to. */
function label(message: { content: unknown }): string | undefined {
  return /(?:work|noted|done) (\w+ turn \d+)/.exec(JSON.stringify(message.content))?.[1];
}

describe.skipIf(unavailable !== undefined)("sessions on PostgreSQL across processes", () => {
  let opened: TestDatabase;
  let schema: TestSchema;
  let database: Database;
  let store: PgSessionStore;
  beforeEach(async () => {
    opened = await openTestDatabase();
    ({ schema, database } = opened);
    store = new PgSessionStore(database);
  });
  afterEach(() => opened.close());

  it(`${PROCESSES} processes × ${TURNS} real turns on one session: whole turns, every tool_use answered, no request rejected`, async () => {
    const model = await startScriptedModel([
      { match: { toolResult: { name: "note" } }, reply: (req) => `done ${label(req.body.messages!.at(-2)!) ?? "?"}` },
      { match: /^work \w+ turn \d+$/, reply: (req) => ({ toolUses: [{ name: "note", input: { text: `noted ${label(req.body.messages!.at(-1)!)}` } }] }) },
    ]);
    const workspace = await tempDir("miniclaw-pg-");
    try {
      const tags = Array.from({ length: PROCESSES }, (_, i) => `p${i}`);
      const children = tags.map((tag) => startChild("pg-turns.mjs", [model.baseURL, schema.url, schema.schema, workspace, tag, String(TURNS)]));
      const exits = await Promise.all(children.map((child) => child.exited));
      expect(exits.map((e) => [e.code, e.stderr])).toEqual(tags.map(() => [0, ""]));
      expect(model.rejected.map((r) => r.error)).toEqual([]);
      expect(model.requests).toHaveLength(PROCESSES * TURNS * 2);
      const session = await store.load(KEY, { mode: "read" });
      expect(session.warnings).toEqual([]);
      expect(session.records.filter((r) => r.synthetic)).toEqual([]);
      expect(session.messages).toHaveLength(PROCESSES * TURNS * 4);
      const turns: string[] = [];
      for (let i = 0; i < session.messages.length; i += 4) {
        const group = session.messages.slice(i, i + 4);
        expect(group.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
        const labels = group.map(label);
        expect(new Set(labels).size, JSON.stringify(labels)).toBe(1);
        turns.push(labels[0]!);
      }
      expect(turns.sort()).toEqual(tags.flatMap((tag) => Array.from({ length: TURNS }, (_, n) => `${tag} turn ${n}`)).sort());
      expect(nextRequestProblems(session.messages)).toEqual([]);
    } finally {
      await model.close();
      await rm(workspace, { recursive: true, force: true });
    }
  }, 60_000);

  it("takes over at once the session of a holder killed with SIGKILL, and loads it valid", async () => {
    const holder = startChild("pg-hold.mjs", [schema.url, schema.schema, KEY]);
    await holder.waitFor("locked");
    await expect(new PgSessionStore(database, { lockTimeoutMs: 300 }).lock(KEY)).rejects.toThrow(/session busy: agent:main:shared is locked by miniclaw pid \d+ on /);
    holder.process.kill("SIGKILL");
    await holder.exited;
    const started = Date.now();
    const release = await new PgSessionStore(database, { lockTimeoutMs: 5_000 }).lock(KEY);
    const waited = Date.now() - started;
    await release();
    expect(waited).toBeLessThan(1_000);
    const locked = await store.lock(KEY);
    const session = await store.load(KEY);
    await locked();
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(nextRequestProblems([...session.messages, { role: "user", content: "next" }])).toEqual([]);
  }, 20_000);

  it("refuses the append of a process whose lock was taken over, and keeps the new holder's records", async () => {
    const holder = startChild("pg-hold.mjs", [schema.url, schema.schema, KEY], { stdin: true });
    try {
      await holder.waitFor("locked");
      // The server drops the holder's connection (a cut network, a pause past the keepalive): its lock is gone.
      await withTestClient((client) => client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [`miniclaw pid ${holder.pid} on ${hostname()}`]));
      const release = await new PgSessionStore(database, { lockTimeoutMs: 5_000 }).lock(KEY);
      const taken = new PgSessionStore(database);
      holder.send("append");
      expect(await printed(holder, /^(refused|appended).*$/m)).toMatch(/^refused: cannot append to session postgres:t_\w+\/agent:main:shared: .*nothing was written$/);
      await release();
      const all = await taken.show(KEY, { all: true });
      expect(all.some((r) => r.type === "message" && r.id.startsWith("late-"))).toBe(false);
    } finally {
      holder.process.kill("SIGKILL");
      await holder.exited;
    }
  }, 20_000);

  it("fences an append whose epoch has moved on, even on a live connection, writing nothing", async () => {
    const release = await store.lock(KEY);
    await store.append(KEY, [user("mine")]);
    await withTestClient((client) => client.query(`UPDATE "${schema.schema}".sessions SET epoch = epoch + 1 WHERE key = $1`, [KEY]));
    await expect(store.append(KEY, [user("too late")])).rejects.toThrow(/another process has taken over its lock since this one took it; nothing was written/);
    await release();
    expect((await store.load(KEY)).messages).toEqual([{ role: "user", content: "mine" }]);
  });

  it("ends a turn whose database goes away mid-tool with stop reason error and one line; the next turn goes on from what was stored", async () => {
    const model = await startScriptedModel([
      { match: { toolResult: { name: "cut" } }, reply: "after the cut" },
      { match: /^cut the line$/, reply: { toolUses: [{ name: "cut", input: {} }] } },
      { match: /.*/, reply: "fine" },
    ]);
    const cut = defineTool({
      name: "cut",
      description: "Drops this process's database connections.",
      input: z.object({}),
      readOnly: true,
      run: async () => {
        await withTestClient((client) => client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1", [`miniclaw pid ${process.pid} on %`]));
        return "cut";
      },
    });
    const workspace = await tempDir("miniclaw-pg-");
    try {
      const runtime = { workspace, cwd: workspace, client: new Anthropic({ apiKey: "test", baseURL: model.baseURL, maxRetries: 0 }), builtinTools: false, includeTime: false, store };
      const options = { runtime, model: "claude-test-1", tools: [cut] };
      const result = await runAgentTurn(KEY, "cut the line", TEST_AGENT, options);
      expect(result.stopReason).toBe("error");
      expect(result.error).toMatch(/^could not write the session: cannot append to session postgres:\S+: [^\n]*$/);
      const next = await runAgentTurn(KEY, "still there?", TEST_AGENT, options);
      expect(next.stopReason, next.error).toBe("end_turn");
      const session = await store.load(KEY);
      expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
      expect(JSON.stringify(session.messages[2])).toMatch(/tool_result.*is_error/);
      expect(model.rejected).toEqual([]);
    } finally {
      await model.close();
      await rm(workspace, { recursive: true, force: true });
    }
  });

  it("queues this process's waiters in memory: they hold no turn connection, and a full pool is said as such", async () => {
    const small = await openPostgres({ url: schema.url, schema: schema.schema, turnConnections: 2 }, { lockTimeoutMs: 400 });
    try {
      const narrow = small.sessions;
      const releaseA = await narrow.lock("a");
      const waiters = [narrow.lock("a"), narrow.lock("a")].map((p) => p.then((release) => release(), (error: Error) => error.message));
      const releaseB = await narrow.lock("b");
      await expect(narrow.lock("c")).rejects.toThrow(/^cannot lock session c: all 2 turn connections of this process are in use \(raise the database option's turnConnections\)/);
      await releaseB();
      await releaseA();
      // The waiters gave up in memory, having never taken one of the two connections (else "b" could not have been locked).
      expect(await Promise.all(waiters)).toEqual([1, 2].map(() => expect.stringMatching(/^session busy: a is locked by another turn of this process \(waited 400 ms/)));
      await (await narrow.lock("a"))();
    } finally {
      await small.close();
    }
  });

  it("migrates a new schema once when several processes start at the same moment", async () => {
    const fresh = newTestSchema();
    try {
      // Different pool sizes make four databases, not one shared: four migrations race on an empty schema.
      const racing = await Promise.all([1, 2, 3, 4].map((poolSize) => openPostgres({ url: fresh.url, schema: fresh.schema, poolSize })));
      const versions = await withTestClient((client) => client.query(`SELECT version FROM "${fresh.schema}".migrations ORDER BY version`));
      expect(versions.rows.map((row: { version: number }) => row.version)).toEqual([1, 2]);
      const appended = racing[3]!.sessions;
      await appended.append(KEY, [user("after the race")]);
      expect((await racing[0]!.sessions.load(KEY)).messages).toEqual([{ role: "user", content: "after the race" }]);
      await Promise.all(racing.map((postgres) => postgres.close()));
    } finally {
      await fresh.drop();
    }
  });

  it("starts as a role that may only use the tables once they exist (no CREATE on the database)", async () => {
    const role = `${schema.schema}_app`;
    await withTestClient((client) =>
      client.query(`CREATE ROLE ${role} LOGIN; GRANT USAGE ON SCHEMA "${schema.schema}" TO ${role};
        GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema.schema}" TO ${role}; GRANT USAGE ON ALL SEQUENCES IN SCHEMA "${schema.schema}" TO ${role}`),
    );
    const url = schema.url.replace(/\/\/[^@/]*@/, `//${role}@`);
    try {
      const app = await openPostgres({ url, schema: schema.schema });
      try {
        const appStore = app.sessions;
        await appStore.append(KEY, [user("from the app role")]);
        expect((await appStore.load(KEY)).messages).toEqual([{ role: "user", content: "from the app role" }]);
      } finally {
        await app.close();
      }
    } finally {
      await withTestClient((client) => client.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`));
    }
  });

  it("ends an append with one clear error when the database goes away mid-turn, keeping what was acknowledged", async () => {
    const release = await store.lock(KEY);
    await store.append(KEY, [user("acknowledged")]);
    await withTestClient((client) => client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()", [`miniclaw pid ${process.pid} on %`]));
    await expect(store.append(KEY, [user("lost with the connection")])).rejects.toThrow(/^cannot append to session postgres:\S+: .*(terminat|connection)/i);
    await release();
    expect((await store.load(KEY)).messages).toEqual([{ role: "user", content: "acknowledged" }]);
  });

  it("reads on after the server ended every connection of the pool, idle ones included: a read runs again on a new one", async () => {
    await store.append(KEY, [user("kept")]);
    for (let round = 0; round < 5; round++) {
      // Several idle connections in the pool, then all of them ended by the server at once.
      await Promise.all([store.load(KEY), store.list(), store.exists(KEY), store.load(KEY)]);
      await withTestClient((client) => client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()", [`miniclaw pid ${process.pid} on %`]));
      const [loaded, listed, exists] = await Promise.all([store.load(KEY), store.list(), store.exists(KEY)]);
      expect([loaded.messages, listed.map((s) => s.key), exists]).toEqual([[{ role: "user", content: "kept" }], [KEY], true]);
    }
  });

  it("locks a session after the server ended every turn connection, idle ones included: the lock runs again on a new one", async () => {
    for (let round = 0; round < 20; round++) {
      // Idle turn connections left in the pool by earlier locks, then all of them ended by the server at once.
      await Promise.all([KEY, `${KEY}-b`, `${KEY}-c`].map(async (key) => (await store.lock(key))()));
      await withTestClient((client) => client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE $1 AND pid <> pg_backend_pid()", [`miniclaw pid ${process.pid} on %`]));
      const releases = await Promise.all([KEY, `${KEY}-b`, `${KEY}-c`].map((key) => store.lock(key)));
      await Promise.all(releases.map((release) => release()));
    }
  });
});
