// The session contract, one suite run against both backends: the JSONL files and PostgreSQL.
import { appendFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PgSessionStore } from "../../src/postgres/index.js";
import type { CompactionRecord, SessionRecord } from "../../src/sessions/records.js";
import { SessionStore, type SessionBackend } from "../../src/sessions/store.js";
import { exportSession, importSession } from "../../src/sessions/session-listing.js";
import { SUMMARY_PREFIX, SUMMARY_SUFFIX } from "../../src/sessions/session-handle.js";
import { databaseUnavailable, openTestDatabase, withTestClient } from "../helpers/pg.js";
import { nextRequestProblems } from "../helpers/session-validity.js";
import { assistantText, assistantToolUse, tempDir, toolResults, turn, usageOf, user } from "./session-builders.js";
import { compactionRecordFor, planCompaction } from "../../src/sessions/compaction.js";
import { INTERRUPTED_TOOL_TEXT } from "../../src/sessions/repair.js";

const KEY = "agent:main:main";
const unavailable = await databaseUnavailable();

/** A backend under test: stores on one shared place, and a way to damage a record behind the store's back. */
interface Place {
  store(options?: { lockTimeoutMs?: number; onWarning?: (message: string) => void }): SessionBackend;
  /** Adds a line that is JSON but not a record, as a hand edit or another version might. */
  damage(key: string): Promise<void>;
  cleanup(): Promise<void>;
}

const files = async (): Promise<Place> => {
  const { dir, cleanup } = await tempDir();
  return {
    store: (options = {}) => new SessionStore(dir, options),
    damage: (key) => appendFile(new SessionStore(dir).fileFor(key), '{"type":"message","id":"x"}\n'),
    cleanup,
  };
};

const postgres = async (): Promise<Place> => {
  const { schema, database, close } = await openTestDatabase();
  return {
    store: (options = {}) => new PgSessionStore(database, options),
    damage: (key) =>
      withTestClient(async (client) => {
        const t = `"${schema.schema}"`;
        await client.query(`WITH s AS (UPDATE ${t}.sessions SET next_seq = next_seq + 1 WHERE key = $1 RETURNING next_seq - 1 AS seq)
          INSERT INTO ${t}.session_records (session_key, seq, id, type, record) SELECT $1, s.seq, 'x', 'message', '{"type":"message","id":"x"}' FROM s`, [key]);
      }),
    cleanup: close,
  };
};

const backends: [string, () => Promise<Place>, boolean][] = [
  ["files", files, false],
  ["PostgreSQL", postgres, unavailable !== undefined],
];

function compaction(firstKeptId: string, summary: string): CompactionRecord {
  return { type: "compaction", id: `c-${summary}`, ts: 5_000, summary, firstKeptId, replacedMessages: 4, tokensBefore: 1234 };
}

describe.each(backends)("the session contract on %s", (_name, open, skip) => {
  let place: Place;
  let store: SessionBackend;
  beforeEach(async (context) => {
    if (skip) return context.skip();
    place = await open();
    store = place.store();
  });
  afterEach(async () => {
    if (!skip) await place.cleanup();
  });

  it("loads a missing session as empty, and says it does not exist", async () => {
    const session = await store.load(KEY);
    expect(session).toMatchObject({ exists: false, messages: [], records: [] });
    expect(await store.exists(KEY)).toBe(false);
  });

  it("writes a header naming the key's agent before the first record, once", async () => {
    await store.append("agent:scout:main", [user("hi")]);
    await store.append("agent:scout:main", [assistantText("hello")]);
    const all = await store.show("agent:scout:main", { all: true });
    expect(all.map((r) => r.type)).toEqual(["session", "message", "message"]);
    expect(all[0]).toMatchObject({ type: "session", key: "agent:scout:main", agentId: "scout" });
    expect(await store.exists("agent:scout:main")).toBe(true);
    expect((await store.load("agent:scout:main")).agentId).toBe("scout");
  });

  it("creates an empty session once, and refuses to create it again", async () => {
    await store.create("agent:main:x");
    expect(await store.exists("agent:main:x")).toBe(true);
    await expect(store.create("agent:main:x")).rejects.toThrow(/already exists/);
  });

  it("closes a turn cut short mid-tool at the next turn's start, and persists the repair", async () => {
    await store.append(KEY, [user("read it"), assistantToolUse(["toolu_a"])]);
    const release = await store.lock(KEY);
    const session = await store.load(KEY);
    await release();
    expect(nextRequestProblems([...session.messages, { role: "user", content: "next" }])).toEqual([]);
    const all = await store.show(KEY, { all: true });
    expect(all.slice(-2)).toMatchObject([
      { type: "message", synthetic: true, message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", is_error: true }] } },
      { type: "message", synthetic: true, message: { role: "assistant" } },
    ]);
    expect((await store.load(KEY)).messages).toEqual(session.messages);
  });

  it("answers a trailing tool_use in memory only when reading without the lock", async () => {
    await store.append(KEY, [user("read it"), assistantToolUse(["toolu_a"])]);
    const before = (await store.show(KEY, { all: true })).length;
    const session = await store.load(KEY);
    expect(session.messages.at(-1)).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", is_error: true }] });
    expect((await store.show(KEY, { all: true })).length).toBe(before);
  });

  it("returns the end as written during a turn, once the turn has written", async () => {
    const release = await store.lock(KEY);
    await store.append(KEY, [user("question")]);
    const session = await store.load(KEY);
    await release();
    expect(session.messages).toEqual([{ role: "user", content: "question" }]);
  });

  it("loads from the last compaction, the summary before the first kept message; show and show --all", async () => {
    const [t1, t2, t3, t4] = [turn(1), turn(2), turn(3), turn(4)];
    const last = compaction(t3[0]!.id, "second");
    await store.append(KEY, [...t1, ...t2, compaction(t2[0]!.id, "first"), ...t3, last, ...t4]);
    const session = await store.load(KEY);
    expect(session.compaction).toEqual(last);
    expect(session.records).toEqual([...t3, ...t4]);
    expect(session.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: SUMMARY_PREFIX + "second" + SUMMARY_SUFFIX }, { type: "text", text: "question 3" }] });
    expect(session.lastUsage).toEqual({ usage: t4[3]!.usage, index: 7 });
    const shown = await store.show(KEY);
    expect(shown.map((r) => r.type === "message" ? r.id : r.type)).toEqual(["session", "compaction", ...[...t3, ...t4].map((r) => r.id)]);
    expect((await store.show(KEY, { all: true })).length).toBe(1 + 16 + 2);
  });

  it("loads from the compaction on, with a warning, when its first kept message is gone", async () => {
    const [t1, t2] = [turn(1), turn(2)];
    await store.append(KEY, [...t1, compaction("no-such-id", "s"), ...t2]);
    const session = await store.load(KEY);
    expect(session.records).toEqual(t2);
    expect(session.warnings.join("\n")).toMatch(/first kept message no-such-id/);
  });

  it("skips a damaged record with a warning and keeps the rest", async () => {
    await store.append(KEY, [user("one"), assistantText("two")]);
    await place.damage(KEY);
    await store.append(KEY, [user("three")]);
    const session = await store.load(KEY);
    expect(session.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(session.warnings.join("\n")).toMatch(/corrupt/);
  });

  it("refuses to write an invalid record, writing nothing", async () => {
    await store.append(KEY, [user("one")]);
    const bad = { type: "message", id: "b", ts: 1, message: { role: "robot", content: "x" } } as unknown as SessionRecord;
    await expect(store.append(KEY, [user("two"), bad])).rejects.toThrow(/invalid message record/);
    expect((await store.load(KEY)).messages).toEqual([{ role: "user", content: "one" }]);
  });

  it("takes lastUsage only from responses written after the compaction", async () => {
    const [t1, t2] = [turn(1), turn(2)];
    await store.append(KEY, [...t1, ...t2, compaction(t2[0]!.id, "s")]);
    expect((await store.load(KEY)).lastUsage).toBeUndefined();
    const t3 = turn(3);
    await store.append(KEY, t3);
    expect((await store.load(KEY)).lastUsage).toEqual({ usage: t3[3]!.usage, index: 7 });
  });

  it("puts the summary in its own message when the first kept message is not plain user text", async () => {
    const ask = assistantToolUse(["toolu_z"]);
    await store.append(KEY, [...turn(1), ask, compaction(ask.id, "s")]);
    const session = await store.load(KEY);
    expect(session.messageOffset).toBe(1);
    expect(session.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: SUMMARY_PREFIX + "s" + SUMMARY_SUFFIX }] });
    expect(nextRequestProblems(session.messages)).toEqual([]);
  });

  it("round-trips a planned compaction", async () => {
    await store.append(KEY, [...turn(1), ...turn(2), ...turn(3), user("latest")]);
    const plan = planCompaction((await store.load(KEY)).records, { keepTokens: 1 });
    expect(plan).not.toBeNull();
    await store.append(KEY, [compactionRecordFor(plan!, "what happened", { ts: 9, tokensBefore: 999 })]);
    const after = await store.load(KEY);
    expect(after.records[0]?.id).toBe(plan!.firstKeptId);
    expect(nextRequestProblems(after.messages)).toEqual([]);
    expect(JSON.stringify(after.messages[0])).toContain("what happened");
  });

  it("answers a tool_use in the middle whose result is missing, inside the next user message", async () => {
    await store.append(KEY, [user("go"), assistantToolUse(["toolu_a", "toolu_b"]), toolResults(["toolu_b"]), assistantText("done"), user("and?"), assistantToolUse(["toolu_c"]), user("never mind"), assistantText("ok")]);
    const session = await store.load(KEY);
    expect(nextRequestProblems([...session.messages, { role: "user", content: "next" }])).toEqual([]);
    expect(session.messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_a", is_error: true, content: INTERRUPTED_TOOL_TEXT },
      { type: "tool_result", tool_use_id: "toolu_b", content: "contents of toolu_b" },
    ]);
  });

  it("keeps pairs valid when the record of a tool_use is damaged", async () => {
    await store.append(KEY, [user("go")]);
    await place.damage(KEY);
    await store.append(KEY, [toolResults(["toolu_lost"]), assistantText("done")]);
    const session = await store.load(KEY);
    expect(nextRequestProblems(session.messages)).toEqual([]);
    expect(JSON.stringify(session.messages)).toContain("[result of an earlier tool call toolu_lost]");
  });

  it("keeps a trailing user message when reading, and obeys an explicit mode", async () => {
    await store.append(KEY, [...turn(1), user("are you there?")]);
    expect((await store.load(KEY)).messages.at(-1)).toEqual({ role: "user", content: "are you there?" });
    expect((await store.load(KEY, { mode: "in-turn" })).messages.at(-1)).toEqual({ role: "user", content: "are you there?" });
    expect(await store.show(KEY, { all: true })).toHaveLength(6);
    expect((await store.load(KEY, { mode: "turn-start" })).messages.at(-1)?.role).toBe("assistant");
    expect(await store.show(KEY, { all: true })).toHaveLength(7);
  });

  it("forks a whole session with its compaction, and refuses a missing source", async () => {
    const [t1, t2] = [turn(1), turn(2)];
    const c = compaction(t2[0]!.id, "s");
    await store.append("src", [...t1, ...t2, c]);
    const fork = await store.fork("src", "dst");
    expect(fork.compaction).toEqual(c);
    expect(fork.records).toEqual(t2);
    await expect(store.fork("zzz", "d")).rejects.toThrow(/no session zzz/);
    await expect(store.show("zzz")).rejects.toThrow(/no session zzz/);
  });

  it("lists sessions newest first with agent, messages and tokens", async () => {
    const now = Date.now();
    await store.append("agent:main:old", [{ ...user("a"), ts: now + 1_000 }, { ...assistantText("b", usageOf(500)), ts: now + 2_000 }]);
    await store.append("agent:scout:new", [{ ...user("c"), ts: now + 9_000 }]);
    const listed = await store.list();
    expect(listed.map((l) => [l.key, l.agentId, l.messages, l.lastActivity])).toEqual([
      ["agent:scout:new", "scout", 1, now + 9_000],
      ["agent:main:old", "main", 2, now + 2_000],
    ]);
    expect(listed[1]!.estimatedTokens).toBeGreaterThanOrEqual(500);
  });

  it("forks a session up to a message, the copy naming its source and ending valid", async () => {
    const t1 = turn(1);
    const t2 = turn(2);
    await store.append(KEY, [...t1, ...t2]);
    const copy = await store.fork(KEY, "agent:main:copy", { upToMessageId: t2[1]!.id });
    expect(copy.records.slice(0, 6).map((r) => r.id)).toEqual([...t1, t2[0]!, t2[1]!].map((r) => r.id));
    expect(nextRequestProblems([...copy.messages, { role: "user", content: "go on" }])).toEqual([]);
    expect((await store.show("agent:main:copy", { all: true }))[0]).toMatchObject({ type: "session", forkedFrom: KEY });
    await expect(store.fork(KEY, "agent:main:copy")).rejects.toThrow(/already exists/);
    await expect(store.fork(KEY, "agent:main:other", { upToMessageId: "nope" })).rejects.toThrow(/no message nope/);
  });

  it("serializes turns: a second store waits for the first's release", async () => {
    const other = place.store();
    const release = await store.lock(KEY);
    const order: string[] = [];
    const waiting = other.lock(KEY).then((r) => (order.push("second"), r));
    await new Promise((resolve) => setTimeout(resolve, 150));
    order.push("first released");
    await release();
    await (await waiting)();
    expect(order).toEqual(["first released", "second"]);
  });

  it("tells a second caller the session is busy after the bounded wait", async () => {
    const release = await store.lock(KEY);
    const started = Date.now();
    await expect(place.store({ lockTimeoutMs: 300 }).lock(KEY)).rejects.toThrow(/session busy: agent:main:main/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    await release();
    await (await place.store({ lockTimeoutMs: 300 }).lock(KEY))();
  });

  it("keeps steering messages until delivered, handing each once per inbox, in order, to any instance until then", async () => {
    const first = await store.addSteer(KEY, "also check the tests");
    const second = await place.store().addSteer(KEY, "and the docs");
    const inbox = store.inbox(KEY);
    expect(await inbox.take()).toEqual([{ id: first, text: "also check the tests" }, { id: second, text: "and the docs" }]);
    expect(await inbox.take()).toEqual([]);
    await inbox.delivered?.([first]);
    expect(await place.store().inbox(KEY).take()).toEqual([{ id: second, text: "and the docs" }]);
    await inbox.delivered?.([second]);
    expect(await place.store().inbox(KEY).take()).toEqual([]);
    await expect(store.addSteer(KEY, "  ")).rejects.toThrow(/the text is empty/);
  });

  it("exports every record as JSONL and imports it under a new key, records identical", async () => {
    await store.append(KEY, [...turn(1), compaction("gone", "s"), ...turn(2)]);
    const text = await exportSession(store, KEY);
    const imported = await importSession(store, text, "export.jsonl", "agent:main:copy");
    expect(imported).toEqual({ key: "agent:main:copy", records: 10 });
    const again = await exportSession(store, "agent:main:copy");
    const strip = (t: string): unknown[] => t.trim().split("\n").map((l) => JSON.parse(l)).map((r) => (r.type === "session" ? { ...r, key: "-" } : r));
    expect(strip(again)).toEqual(strip(text));
    await expect(importSession(store, text, "export.jsonl")).rejects.toThrow(/already exists/);
    await expect(importSession(store, `${text}not json\n`, "bad.jsonl", "agent:main:bad")).rejects.toThrow(/bad.jsonl:11/);
    expect(await store.exists("agent:main:bad")).toBe(false);
  });
});

describe.skipIf(unavailable !== undefined)("moving a session between backends", () => {
  it("round-trips files → PostgreSQL → files to identical records", async () => {
    const [from, to] = [await files(), await postgres()];
    try {
      const source = from.store();
      await source.append(KEY, [...turn(1), compaction("x", "s"), ...turn(2), { type: "mode", id: "md", ts: 9, mode: "plan", by: "user" }]);
      const text = await exportSession(source, KEY);
      await importSession(to.store(), text, "a.jsonl");
      const back = await exportSession(to.store(), KEY);
      expect(back).toBe(text);
      const target = (await files()).store();
      await importSession(target, back, "b.jsonl");
      expect(await exportSession(target, KEY)).toBe(text);
      expect((await to.store().load(KEY)).messages).toEqual((await source.load(KEY)).messages);
    } finally {
      await from.cleanup();
      await to.cleanup();
    }
  });
});
