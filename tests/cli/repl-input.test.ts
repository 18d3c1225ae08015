// The REPL's keys as a person presses them, on the in-process stand-in terminal: Ctrl-C, pastes, continued lines, Esc, one-key approvals, type-ahead, /clear, /sessions, the banner, retries, Markdown, and line mode's exit code.
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel, type RecordedRequest, type Rule } from "../../src/testing/index.js";
import { cleanEnv, runMain, startMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

const LONG = "Every word of this reply stays whole when the terminal wraps it, so no machine word is ever cut in two pieces across rows ".repeat(2).trim();
const RULES: Rule[] = [
  { match: /slow story/, fault: { delayMs: 60_000, afterEvents: 4 }, reply: "Once.\nupon a time, and then it stalls" },
  { match: /^wait/, fault: { delayMs: 1_500, afterEvents: 2 }, reply: "Done waiting for you." },
  { match: /run the tests/, reply: { toolUses: [{ name: "run_command", input: { command: "npm test --version" } }] } },
  { match: { toolResult: { name: "run_command" } }, reply: "The command said: {{tool_result}}" },
  { match: /busy/, fault: { status: 529, retryAfterMs: 5 }, times: 1 },
  { match: /break/, fault: { status: 400, errorType: "invalid_request_error", message: "scripted failure" } },
  { match: /markdown/, reply: `# Plan\n\nSome **bold** and \`code\` here.\n\n- first\n- second\n\n\`\`\`sh\nnpm test\n\`\`\`\n\n${LONG}\n` },
  { reply: "I heard: {{user_text}}" },
];

/** The text the person sent in a request: the first text block of its last user message. */
function sentText(request: RecordedRequest): string {
  const messages = request.body.messages as Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
  const last = messages.filter((m) => m.role === "user").at(-1)!;
  return typeof last.content === "string" ? last.content : (last.content.find((b) => b.type === "text")?.text ?? "");
}

async function openIn(ctx: TestContext, env: Record<string, string> = {}) {
  const model = await startScriptedModel(RULES);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-keys-");
  const fullEnv = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x", ...env });
  const repl = startMain(["--workspace", join(dir, "ws")], { env: fullEnv, cwd: dir, terminal: true });
  await repl.screen.waitFor(/Jarvis› /);
  const sent = (): string[] => model.requests.map(sentText);
  /** Types `keys` and waits for `pattern` in what is printed after them. */
  const typeAndWait = async (keys: string, pattern: RegExp): Promise<void> => {
    const mark = repl.screen.output().length;
    repl.type(keys);
    await repl.screen.waitFor(pattern, { from: mark });
  };
  const exit = async (): Promise<void> => {
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
  };
  return { model, repl, dir, sent, typeAndWait, exit };
}

describe.concurrent("the REPL's keys on a terminal, in process", () => {
  it("Ctrl-C with text on the prompt clears it; what is typed next is sent alone; two Ctrl-C on an empty prompt exit", async (ctx) => {
    const { repl, sent, typeAndWait } = await openIn(ctx);
    await typeAndWait("some typed text", /some typed text/);
    await typeAndWait("\x03", /Jarvis› /);
    ctx.expect(repl.screen.output()).not.toMatch(/press Ctrl-C again/);
    await typeAndWait("greetings\r", /I heard: greetings\n[\s\S]*Jarvis› /);
    ctx.expect(sent()).toEqual(["greetings"]);
    await typeAndWait("\x03", /press Ctrl-C again or Ctrl-D to exit/);
    repl.type("\x03");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("a bracketed paste of several lines is one message, and the line editor stays in step", async (ctx) => {
    const { sent, typeAndWait, exit } = await openIn(ctx);
    await typeAndWait("\x1b[200~first line\r\nsecond line\nthird line\x1b[201~", /\[Pasted text #1 \+3 lines\]/);
    await typeAndWait(" and hi\r", /I heard: first line\nsecond line\nthird line and hi\n[\s\S]*Jarvis› /);
    // Without bracketed paste, lines arriving at once are a paste too; Ctrl-U then empties the line.
    await typeAndWait("one\rtwo\r", /\[Pasted text #1 \+2 lines\]/);
    await typeAndWait("\x15hi\r", /I heard: hi\n/);
    ctx.expect(sent()).toEqual(["first line\nsecond line\nthird line and hi", "hi"]);
    await exit();
  });

  it("a trailing backslash or Shift-Enter continues the message on the next line", async (ctx) => {
    const { sent, typeAndWait, exit } = await openIn(ctx);
    await typeAndWait("first\\\r", /… /);
    await typeAndWait("second\x1b\r", /… /);
    await typeAndWait("third\r", /I heard: first\nsecond\nthird/);
    ctx.expect(sent()).toEqual(["first\nsecond\nthird"]);
    await exit();
  });

  it("Esc interrupts a running turn; /clear starts a new session that /sessions lists at once", async (ctx) => {
    const { repl, typeAndWait, exit } = await openIn(ctx);
    await typeAndWait("tell me a slow story\r", /Once/);
    await typeAndWait("\x1b", /\(interrupted\)[\s\S]*Jarvis› /);
    await typeAndWait("/clear\r", /New conversation agent:main:\d{8}-\d{6}-[0-9a-f]{4} \(after a message, miniclaw -c or miniclaw --resume \S+ reopens it\)\./);
    const key = /New conversation (agent:main:\S+) /.exec(repl.screen.output())![1]!;
    await typeAndWait("/sessions\r", new RegExp(`${key} +0 +\\(new\\) ←[\\s\\S]*agent:main:main +main +\\d+ +~\\d+`));
    await exit();
  });

  it("the approval question takes one key without Enter", async (ctx) => {
    const { typeAndWait, exit } = await openIn(ctx);
    await typeAndWait("please run the tests\r", /Allow "npm test --version"\? \[y\]es once/);
    await typeAndWait("x", /\(y, a, n or d\) Allow "npm test --version"\?/);
    await typeAndWait("y", /^yes\n[\s\S]*The command said: exit code: 0[\s\S]*Jarvis› /);
    await exit();
  });

  it("with /queue followup, lines typed while a turn runs are shown as queued and run in order after it", async (ctx) => {
    const { sent, typeAndWait, exit } = await openIn(ctx);
    await typeAndWait("/queue followup\r", /wait for it to end[\s\S]*Jarvis› /);
    await typeAndWait("wait for me\r", /wait for me\n/);
    await typeAndWait("first queued\r", /queued: first queued\n/);
    await typeAndWait("second queued\r", /queued: second queued\n/);
    await typeAndWait("", /Done waiting for you\.\nJarvis› first queued\nI heard: first queued[^›]*\nJarvis› second queued\nI heard: second queued[^›]*\nJarvis› /);
    ctx.expect(sent()).toEqual(["wait for me", "first queued", "second queued"]);
    await exit();
  });

  it("the banner names the agent, the model and a server that is not Anthropic's", async (ctx) => {
    const { model, repl, exit } = await openIn(ctx, { MINICLAW_MODEL: "claude-test-model" });
    const lines = repl.screen.output().split("\n");
    const top = lines.findIndex((line) => line.startsWith("miniclaw · "));
    ctx.expect(lines.slice(top, top + 3)).toEqual([
      "miniclaw · Jarvis (main) · model claude-test-model",
      `server ${model.baseURL} · session agent:main:main`,
      "/help for commands, Ctrl-D to exit",
    ]);
    for (const line of lines.slice(top, top + 3)) ctx.expect(line.length).toBeLessThanOrEqual(80);
    await exit();
  });

  it("a 529 the SDK retries shows as one dim retry line naming the status and the URL, then the reply", async (ctx) => {
    const { model, typeAndWait, exit } = await openIn(ctx);
    const url = `${model.baseURL}/v1/messages`.replace(/[.?]/g, "\\$&");
    await typeAndWait("are you busy?\r", new RegExp(`retrying \\(1\\): API error 529 from POST ${url}\\S* \\(3 left\\)\\nI heard: are you busy\\?`));
    await exit();
  });

  it("renders the reply's Markdown and wraps long lines at word boundaries", async (ctx) => {
    const { repl, typeAndWait, exit } = await openIn(ctx);
    const mark = repl.screen.output().length;
    await typeAndWait("show me markdown\r", /Jarvis› $/);
    const shown = repl.screen.output().slice(mark);
    ctx.expect(shown).toContain("# Plan\n\nSome bold and code here.\n\n  * first\n  * second\n\n  npm test\n");
    const rows = shown.split("\n").filter((row) => row.startsWith("Every") || row.startsWith("pieces") || /machine|cut in two/.test(row));
    ctx.expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) ctx.expect(row.length).toBeLessThanOrEqual(120);
    ctx.expect(shown.replace(/\n/g, " ")).toContain(LONG);
    await exit();
  });
});

describe("the REPL in line mode", () => {
  it("exits 1 when a turn ends in an error, after answering the other lines", async ({ expect }) => {
    const model = await startScriptedModel(RULES);
    try {
      const dir = await tempDir("miniclaw-keys-");
      const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
      const run = await runMain(["--workspace", join(dir, "ws")], { env, cwd: dir, input: "please break\nhello\n" });
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^I heard: hello\n/);
      expect(run.stdout).not.toMatch(/break/);
      expect(run.stderr).toMatch(/error: API error 400 \(invalid_request_error\) scripted failure/);
      const ok = await runMain(["--workspace", join(dir, "ws")], { env, cwd: dir, input: "hello\n" });
      expect(ok.code).toBe(0);
    } finally {
      await model.close();
    }
  });
});
