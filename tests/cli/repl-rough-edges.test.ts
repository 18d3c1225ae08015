// Small things a person notices in the REPL: /compact on a short session, "1 response", /sessions columns, the banner on PostgreSQL.
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, startMain, type MainRun } from "../helpers/cli.js";
import { databaseUnavailable, newTestSchema } from "../helpers/pg.js";
import { tempDir } from "../helpers/temp-dir.js";

async function setup(ctx: TestContext, args: string[] = [], extraEnv: Record<string, string> = {}) {
  const model = await startScriptedModel([{ reply: "ok" }]);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-edges-");
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x", MINICLAW_WORKSPACE: join(dir, "ws"), ...extraEnv });
  const repl = startMain(args, { env, cwd: dir, terminal: true });
  await repl.screen.waitFor(/Jarvis› $/);
  return { model, repl };
}

async function say(repl: MainRun, line: string): Promise<string> {
  const mark = repl.screen.output().length;
  repl.type(`${line}\r`);
  await repl.screen.waitFor(/Jarvis› $/, { from: mark + line.length + 1 });
  return repl.screen.output().slice(mark + line.length + 1, -"Jarvis› ".length);
}

describe.concurrent("the REPL's rough edges", () => {
  it("/compact on a session of one turn says plainly there is nothing to compact, and asks the model nothing", async (ctx) => {
    const { model, repl } = await setup(ctx);
    ctx.expect(await say(repl, "/compact")).toBe("Nothing to compact yet: compaction keeps the last turn whole, and this session has no earlier one.\n");
    await say(repl, "hello");
    ctx.expect(await say(repl, "/compact")).toBe("Nothing to compact yet: compaction keeps the last turn whole, and this session has no earlier one.\n");
    ctx.expect(model.requests).toHaveLength(1);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("/cost counts one response in the singular", async (ctx) => {
    const { repl } = await setup(ctx);
    await say(repl, "hello");
    ctx.expect(await say(repl, "/cost")).toMatch(/^1 response · \d+ tokens in/);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("/sessions aligns its columns under a header, however long a key, and marks the current session", async (ctx) => {
    const { repl } = await setup(ctx, ["--session", "agent:main:a-rather-long-session-key-for-the-columns"]);
    await say(repl, "hello");
    await say(repl, "/new");
    const rows = (await say(repl, "/sessions")).split("\n").filter(Boolean);
    ctx.expect(rows).toHaveLength(3);
    ctx.expect(rows[0]).toMatch(/^ {2}KEY +AGENT +MESSAGES +TOKENS +LAST ACTIVITY$/);
    ctx.expect(rows[1]).toMatch(/^ {2}agent:main:\d{8}-\d{6}-[0-9a-f]{4} +0 +\(new\) ←$/);
    ctx.expect(rows[2]).toMatch(/^ {2}agent:main:a-rather-long-session-key-for-the-columns +main +2 +~\d+ +\d{4}-\d\d-\d\d \d\d:\d\d$/);
    for (const column of ["MESSAGES", "LAST ACTIVITY"]) {
      const at = rows[0]!.indexOf(column);
      ctx.expect(rows[2]!.slice(at - 2, at)).toBe("  ");
      ctx.expect(rows[2]![at]).not.toBe(" ");
    }
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });
});

const unavailable = await databaseUnavailable();

describe.skipIf(unavailable !== undefined)("the REPL on PostgreSQL", () => {
  it("says in its banner that sessions are on PostgreSQL, and in which schema", async (ctx) => {
    const schema = newTestSchema();
    ctx.onTestFinished(() => schema.drop());
    const { repl } = await setup(ctx, [], { MINICLAW_DATABASE_URL: schema.url, MINICLAW_DATABASE_SCHEMA: schema.schema });
    const lines = repl.screen.output().split("\n");
    ctx.expect(lines).toContain(`sessions on PostgreSQL (schema ${schema.schema})`);
    for (const line of lines.slice(0, lines.indexOf("/help for commands, Ctrl-D to exit") + 1)) ctx.expect(line.length).toBeLessThanOrEqual(80);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  }, 30_000);
});
