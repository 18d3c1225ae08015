// What the user adds besides their words: !command runs in their shell and its output goes with the next message; @path attaches a file; sessions show keeps both apart from the user's words.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel, type RecordedRequest } from "../../src/testing/index.js";
import { cleanEnv, runMain, startMain, type MainRun } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const SECRET = "tok-4f9a8b7c6d5e4f3a2b1c";

async function setup(ctx: TestContext) {
  const model = await startScriptedModel([{ reply: "noted" }]);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-user-context-");
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x", MINICLAW_WORKSPACE: join(dir, "ws"), SHELL: "/bin/sh", DEPLOY_TOKEN: SECRET });
  const repl = startMain([], { env, cwd: dir, terminal: true });
  await repl.screen.waitFor(/Jarvis› $/);
  return { model, dir, env, repl };
}

/** Types a line and resolves to what was printed from then until `pattern`. */
async function say(repl: MainRun, line: string, pattern: RegExp): Promise<string> {
  const mark = repl.screen.output().length;
  repl.type(`${line}\r`);
  await repl.screen.waitFor(pattern, { from: mark });
  return repl.screen.output().slice(mark);
}

/** The text blocks of a request's last user message. */
function lastUserBlocks(request: RecordedRequest): string[] {
  const last = request.body.messages!.filter((m) => m.role === "user").at(-1)!;
  return typeof last.content === "string" ? [last.content] : last.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
}

describe.concurrent("!command in the REPL", () => {
  it("runs in the user's shell and folder with no model call, shows its output and exit, and sends both with the next message, credentials redacted", async (ctx) => {
    const { model, dir, env, repl } = await setup(ctx);
    const shown = await say(repl, "!printf 'alpha\\nbeta\\n'; echo \"$DEPLOY_TOKEN\"; pwd; exit 3", /\(exit code 3; the command and its output go with your next message\)\n[\s\S]*Jarvis› $/);
    ctx.expect(shown).toContain(`alpha\nbeta\n${SECRET}\n${dir}\n`);
    ctx.expect(model.requests).toHaveLength(0);
    await say(repl, "what did it print?", /noted[\s\S]*Jarvis› $/);
    const [words, time, context] = lastUserBlocks(model.requests[0]!);
    ctx.expect(words).toBe("what did it print?");
    ctx.expect(time).toMatch(/^<context>Current time: /);
    ctx.expect(context).toMatch(new RegExp(`^<context>The user ran a shell command themselves in ${dir} \\(exit code 3\\):\\n\\$ printf 'alpha\\\\nbeta\\\\n'; .*\\nalpha\\nbeta\\n`));
    ctx.expect(context).not.toContain(SECRET);
    // Taken once: the message after it carries no command.
    await say(repl, "and now?", /noted[\s\S]*Jarvis› $/);
    ctx.expect(lastUserBlocks(model.requests[1]!).join("\n")).not.toContain("shell command");
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);

    // sessions show keeps what miniclaw added apart from the user's words.
    const show = await runMain(["sessions", "show", "agent:main:main"], { env, cwd: dir });
    ctx.expect(show.stdout).toMatch(/\] user: what did it print\?\n\[context\] Current time: [^\n]+\n\[context\] The user ran a shell command themselves/);
    ctx.expect(show.stdout).not.toContain("<context>");
  });

  it("Ctrl-C stops a running command; an empty ! says how to use it", async (ctx) => {
    const { model, repl } = await setup(ctx);
    const mark = repl.screen.output().length;
    repl.type("!echo started; sleep 30\r");
    await repl.screen.waitFor(/started\n/, { from: mark });
    repl.type("\x03");
    await repl.screen.waitFor(/\(stopped \(SIGTERM\); the command and its output go with your next message\)\n[\s\S]*Jarvis› $/, { from: mark });
    await say(repl, "!", /Usage: !command \(runs it in your shell; its output goes with your next message\)\n/);
    ctx.expect(model.requests).toHaveLength(0);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });
});

describe.concurrent("@path in a message", () => {
  it("attaches each file named (relative to the working folder), says so in one line each, and names a missing file or a folder in one line", async (ctx) => {
    const { model, dir, repl } = await setup(ctx);
    await writeFile(join(dir, "notes.md"), "tea at four\n");
    await mkdir(join(dir, "docs"));
    const shown = await say(repl, "compare @notes.md with @missing.txt, @docs and mail me at me@example.com.", /noted[\s\S]*Jarvis› $/);
    ctx.expect(shown.split("\n").filter((line) => line.includes("@"))).toEqual([
      "compare @notes.md with @missing.txt, @docs and mail me at me@example.com.",
      "attached @notes.md (12 characters)",
      `@missing.txt: no such file in ${dir} (not attached)`,
      "@docs: a folder; name a file in it (not attached)",
    ]);
    const blocks = lastUserBlocks(model.requests[0]!);
    ctx.expect(blocks[0]).toBe("compare @notes.md with @missing.txt, @docs and mail me at me@example.com.");
    ctx.expect(blocks.at(-1)).toBe(`<context>The user attached @notes.md (the file ${join(dir, "notes.md")}):\ntea at four\n</context>`);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("keeps a large file's head and tail, within the bound", async (ctx) => {
    const { model, dir, repl } = await setup(ctx);
    await writeFile(join(dir, "big.log"), `${"first line\n"}${"x".repeat(100_000)}\nlast line\n`);
    await say(repl, "look at @big.log", /attached @big\.log \(cut to 20,000 of 80,000\+ characters\)\n[\s\S]*noted[\s\S]*Jarvis› $/);
    const context = lastUserBlocks(model.requests[0]!).at(-1)!;
    ctx.expect(context).toMatch(/^<context>The user attached @big\.log \(the file .*big\.log, cut to its first and last parts: 80,000\+ characters\):\nfirst line\nx+\n\[… \d+ characters cut here …\]\nx+<\/context>$/);
    ctx.expect(context.length).toBeLessThan(20_300);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  });
});
