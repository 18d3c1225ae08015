// Reopening conversations: miniclaw -c, --resume (a numbered list, pick by number), --resume KEY, what the REPL says it reopened, /new kept for later, /mode kept on a new session, keys with blanks refused.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runCli, runMain, startMain, type MainRun } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const HOUR_MS = 3_600_000;

/** A session file of `messages` alternating user and assistant texts, every record stamped `ts`. */
function sessionFile(key: string, agentId: string, ts: number, messages: number): string {
  const header = { type: "session", version: 1, key, agentId, ts };
  const records = Array.from({ length: messages }, (_, i) => ({ type: "message", id: `${key}-${i}`, ts, message: { role: i % 2 === 0 ? "user" : "assistant", content: `${key} message ${i + 1}` } }));
  return [header, ...records].map((record) => JSON.stringify(record)).join("\n") + "\n";
}

async function setup(ctx: TestContext, sessions: Array<[key: string, hoursAgo: number, messages: number]> = []) {
  const model = await startScriptedModel([{ reply: (req) => `I see ${req.body.messages!.length} messages` }]);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-resume-");
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x", MINICLAW_WORKSPACE: join(dir, "ws") });
  ctx.expect((await runMain(["init"], { env, cwd: dir })).code).toBe(0);
  for (const [key, hoursAgo, messages] of sessions) {
    const file = join(dir, `${messages}-${hoursAgo}.jsonl`);
    await writeFile(file, sessionFile(key, key.split(":")[1]!, Date.now() - hoursAgo * HOUR_MS, messages));
    ctx.expect((await runMain(["sessions", "import", file], { env, cwd: dir })).code).toBe(0);
  }
  const start = (...args: string[]): MainRun => startMain(args, { env, cwd: dir, terminal: true });
  return { model, dir, env, start };
}

/** Types a line and waits for `pattern` in what follows. */
async function say(repl: MainRun, line: string, pattern: RegExp): Promise<string> {
  const mark = repl.screen.output().length;
  repl.type(`${line}\r`);
  await repl.screen.waitFor(pattern, { from: mark });
  return repl.screen.output().slice(mark);
}

const CONVERSATIONS: Array<[string, number, number]> = [
  ["agent:main:older", 72, 2],
  ["agent:main:recent", 2, 4],
  // Newer, but no conversation of a person: a cron job's session is not reopened by -c.
  ["cron:digest", 0, 2],
];

describe.concurrent("reopening a conversation", () => {
  it("miniclaw -c reopens the conversation with the latest activity, says what it reopened, and goes on in it", async (ctx) => {
    const { model, start } = await setup(ctx, CONVERSATIONS);
    const repl = start("-c");
    await repl.screen.waitFor(/Jarvis› $/);
    ctx.expect(repl.screen.output()).toContain("session agent:main:recent");
    ctx.expect(repl.screen.output()).toContain("Reopened agent:main:recent: 4 messages, last active 2 hours ago (/new starts another).\n");
    await say(repl, "go on", /I see 5 messages/);
    ctx.expect(model.requests[0]!.body.messages![0]!.content).toBe("agent:main:recent message 1");
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("miniclaw --resume lists the recent conversations numbered, asks again for a number out of range, and opens the one picked", async (ctx) => {
    const { model, start } = await setup(ctx, [...CONVERSATIONS, ["agent:main:single", 30, 1]]);
    const repl = start("--resume");
    await repl.screen.waitFor(/Reopen which\? 1-3 \(Enter: 1, Ctrl-D: none\) $/);
    const rows = repl.screen.output().split("\n").filter((line) => /agent:main:/.test(line));
    ctx.expect(rows.map((row) => row.split(/ +/).slice(0, 4))).toEqual([
      ["1.", "agent:main:recent", "main", "4"],
      ["2.", "agent:main:single", "main", "1"],
      ["3.", "agent:main:older", "main", "2"],
    ]);
    // The columns line up: every row's agent starts where the header's AGENT does.
    const header = repl.screen.output().split("\n").find((line) => line.includes("AGENT"))!;
    for (const row of rows) ctx.expect(row.indexOf(" main ") + 1).toBe(header.indexOf("AGENT"));
    await say(repl, "7", /"7" is not one of the numbers 1 to 3\.\nReopen which\?/);
    await say(repl, "2", /Reopened agent:main:single: 1 message, last active 30 hours ago \(\/new starts another\)\.\n[\s\S]*Jarvis› $/);
    // The one message had no reply: the load answers it (a note that its turn was interrupted) before the new one.
    await say(repl, "hello", /I see 3 messages/);
    ctx.expect(model.requests).toHaveLength(1);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("miniclaw --resume KEY opens that session; a key that does not exist is one line and exit 1 (the binary)", async (ctx) => {
    const { dir, env, start } = await setup(ctx, CONVERSATIONS);
    const repl = start("--resume", "agent:main:older");
    await repl.screen.waitFor(/Reopened agent:main:older: 2 messages, last active 3 days ago \(\/new starts another\)\.\n[\s\S]*Jarvis› $/);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
    const missing = await runCli(["--resume", "agent:main:nope"], { env, cwd: dir });
    ctx.expect(missing).toMatchObject({ code: 1, stdout: "", stderr: 'no session "agent:main:nope" (miniclaw sessions lists them; miniclaw --resume alone offers the recent ones)\n' });
  });

  it("/new starts a conversation under a fresh key that -c reopens after a restart, in the mode /mode set before its first message", async (ctx) => {
    const { start } = await setup(ctx);
    let repl = start();
    await repl.screen.waitFor(/Jarvis› $/);
    const shown = await say(repl, "/new", /New conversation (agent:main:\S+) [\s\S]*Jarvis› $/);
    const key = /New conversation (agent:main:\S+) /.exec(shown)![1]!;
    // Set while the new session has no message, and so no file: kept all the same.
    await say(repl, "/mode plan", /Jarvis \(plan\)› $/);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);

    repl = start("-c");
    await repl.screen.waitFor(/Jarvis \(plan\)› $/);
    ctx.expect(repl.screen.output()).toContain(`session ${key}`);
    ctx.expect(repl.screen.output()).toContain("Permission mode: plan, as this session last recorded (/mode default leaves it).");
    await say(repl, "first words", /I see 1 messages/);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);

    repl = start("-c");
    await repl.screen.waitFor(new RegExp(`Reopened ${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: 2 messages, last active just now`));
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("-c with nothing to reopen says so and starts the default session; --resume without a terminal asks for a KEY", async (ctx) => {
    const { dir, env, start } = await setup(ctx);
    const repl = start("-c");
    await repl.screen.waitFor(/No earlier conversation to reopen: starting agent:main:main\.\n[\s\S]*Jarvis› $/);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
    const piped = await runMain(["--resume"], { env, cwd: dir, input: "hello\n" });
    ctx.expect(piped).toMatchObject({ code: 1, stderr: "miniclaw --resume without a KEY asks on a terminal: give --resume KEY (miniclaw sessions lists them)\n" });
  });
});

describe.concurrent("session keys with blanks", () => {
  it("are refused with one line wherever miniclaw would create one, since every line naming a key would need it quoted", async (ctx) => {
    const { dir, env } = await setup(ctx);
    const hint = "a session key has no blanks or control characters (use - or _, e.g. agent:main:my-notes)";
    ctx.expect(await runMain(["run", "--session", "agent:main:my notes", "hi"], { env, cwd: dir })).toMatchObject({ code: 1, stderr: `--session "agent:main:my notes": ${hint}\n` });
    ctx.expect(await runMain(["--session", "my notes"], { env, cwd: dir })).toMatchObject({ code: 1, stderr: `--session "my notes": ${hint}\n` });
    ctx.expect(await runMain(["sessions", "new", "a b"], { env, cwd: dir })).toMatchObject({ code: 1, stderr: `sessions new "a b": ${hint}\n` });
  });
});
