import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { startScriptedModel, validateRequest, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { cleanEnv, runCli, runMain, startMain } from "../helpers/cli.js";
import { startTerminal, type Terminal } from "../helpers/pty.js";
import { tempDir } from "../helpers/temp-dir.js";

/** One scripted model per test, checked (no request rejected) and closed after it; the terminal is killed by its helper. */
const scripted = scriptedModelPerTest();
let model: ScriptedModel;
let term: Terminal;

const RULES: Rule[] = [
  { match: /^hello/, reply: { text: "Hello there, streaming word by word for you.", delayMs: 5 } },
  { match: /run the tests/, reply: { toolUses: [{ name: "run_command", input: { command: "npm test --version" } }] } },
  { match: { toolResult: { name: "run_command" } }, reply: "The command said: {{tool_result}}" },
  { match: /slow story/, fault: { delayMs: 60_000, afterEvents: 4 }, reply: "Once.\nupon a time, and then it stalls" },
  { reply: "I heard: {{user_text}}" },
];

async function open(rules: Rule[] = RULES) {
  model = await scripted(rules);
  const dir = await tempDir("miniclaw-repl-");
  const workspace = join(dir, "ws");
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
  return { dir, workspace, env };
}

describe("the REPL in a terminal", () => {
  it("greets, streams, asks approval inline, survives Ctrl-C, routes /research, answers /cost and unknown commands, exits", async () => {
    const { dir, workspace, env } = await open();
    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);

    let mark = term.output().length;
    term.type("hello\r");
    await term.waitFor(/Hello there, streaming word by word for you\.\n[\s\S]*Jarvis› /, { from: mark });

    mark = term.output().length;
    term.type("please run the tests\r");
    await term.waitFor(/→ run_command: npm test --version/, { from: mark });
    await term.waitFor(/Allow "npm test --version"\? \[y\]es once \/ \[a\]lways \/ \[n\]o \/ \[d\]eny always/, { from: mark });
    term.type("a\r");
    await term.waitFor(/The command said: /, { from: mark });
    await term.waitFor(/Jarvis› /, { from: term.output().length - 10 });
    const approvals = JSON.parse(await readFile(join(workspace, "exec-approvals.json"), "utf8")) as { allowed: string[] };
    expect(approvals.allowed).toContain("npm test --version");

    mark = term.output().length;
    term.type("tell me a slow story\r");
    await term.waitFor(/Once/, { from: mark });
    term.type("\x03");
    await term.waitFor(/\(interrupted\)[\s\S]*Jarvis› /, { from: mark });

    mark = term.output().length;
    term.type("hello again\r");
    await term.waitFor(/Hello there/, { from: mark });
    await term.waitFor(/Jarvis› /, { from: term.output().length - 10 });
    for (const request of model.requests) expect(validateRequest(request.body)).toBeNull();

    mark = term.output().length;
    term.type("/research what is new?\r");
    await term.waitFor(/I heard: what is new\?/, { from: mark });
    expect(JSON.stringify(model.requests.at(-1)!.body.system)).toMatch(/Scout/);

    mark = term.output().length;
    term.type("/cost\r");
    await term.waitFor(/responses · \d+ tokens in \([\d.]+% read from cache\) · \d+ tokens out · ~\$[\d.]+/, { from: mark });

    mark = term.output().length;
    term.type("/new\r");
    await term.waitFor(/New conversation agent:main:/, { from: mark });
    term.type("/cost\r");
    await term.waitFor(/No usage yet in this session\.[\s\S]*Jarvis› /, { from: mark });

    const before = model.requests.length;
    mark = term.output().length;
    term.type("/frobnicate\r");
    await term.waitFor(/Unknown command \/frobnicate\. Type \/help/, { from: mark });
    expect(model.requests.length).toBe(before);

    term.type("/exit\r");
    expect(await term.exited).toBe(0);
    const history = await readFile(join(workspace, ".history"), "utf8");
    expect(history.split("\n")).toEqual(expect.arrayContaining(["hello", "please run the tests", "/research what is new?"]));
  }, 40_000);
});

describe("the REPL's keys in a real terminal", () => {
  it("takes a bracketed paste as one message, an approval as one key, Esc as an interrupt, and renders Markdown (the bundle)", async () => {
    const { dir, workspace, env } = await open([{ match: /^bold/, reply: "Some **bold** words." }, ...RULES]);
    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);
    expect(term.raw()).toContain("\x1b[?2004h");

    let mark = term.output().length;
    term.type("\x1b[200~line one\rline two\x1b[201~");
    await term.waitFor(/\[Pasted text #1 \+2 lines\]/, { from: mark });
    term.type("\r");
    await term.waitFor(/I heard: line one\nline two/, { from: mark });
    await term.waitFor(/Jarvis› /, { from: term.output().length - 10 });

    mark = term.output().length;
    term.type("please run the tests\r");
    await term.waitFor(/Allow "npm test --version"\?/, { from: mark });
    term.type("y");
    await term.waitFor(/\[d\]eny always yes\n[\s\S]*The command said: exit code: 0/, { from: mark });
    await term.waitFor(/Jarvis› /, { from: term.output().length - 10 });

    mark = term.output().length;
    term.type("tell me a slow story\r");
    await term.waitFor(/Once/, { from: mark });
    term.type("\x1b");
    await term.waitFor(/\(interrupted\)[\s\S]*Jarvis› /, { from: mark });

    mark = term.output().length;
    term.type("bold please\r");
    await term.waitFor(/Some bold words\.\nJarvis› /, { from: mark });
    expect(term.output().slice(mark)).not.toContain("**");
    term.type("\x04");
    expect(await term.exited).toBe(0);
    expect(term.raw()).toContain("\x1b[?2004l");
  }, 30_000);
});

// The same REPL in this process on a stand-in terminal (readline's terminal mode over streams): what is
// judged here is the REPL's own handling of keys, history and exits, not the kernel's terminal.
describe.concurrent("the REPL on a terminal, in process", () => {
  /** A scripted model checked and closed after the test, and a folder for the workspace. */
  async function openIn(ctx: TestContext) {
    const server = await startScriptedModel(RULES);
    ctx.onTestFinished(async () => {
      ctx.expect(server.rejected).toEqual([]);
      await server.close();
    });
    const dir = await tempDir("miniclaw-repl-");
    const env = cleanEnv({ ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "x" });
    const start = () => startMain(["--workspace", join(dir, "ws")], { env, cwd: dir, terminal: true });
    return { start, server };
  }

  it("offers the inputs of earlier runs with the up arrow", async (ctx) => {
    const { start } = await openIn(ctx);
    let repl = start();
    await repl.screen.waitFor(/Jarvis› /);
    repl.type("remember this line\r");
    await repl.screen.waitFor(/I heard: remember this line/);
    repl.type("/exit\r");
    ctx.expect((await repl.done).code).toBe(0);
    repl = start();
    await repl.screen.waitFor(/Jarvis› /);
    const mark = repl.screen.output().length;
    repl.type("\x1b[A\x1b[A");
    await repl.screen.waitFor(/remember this line/, { from: mark });
    // The first Ctrl-C clears the recalled line; two more on the empty prompt exit.
    repl.type("\x03\x03\x03");
    ctx.expect((await repl.done).code).toBe(0);
  });

  for (const [name, key] of [["Ctrl-C", "\x03"], ["Esc", "\x1b"]] as const) {
    it(`${name} at an approval question ends the turn, as in Claude Code: nothing runs, no request follows, and the next turn works`, async (ctx) => {
      const { start, server } = await openIn(ctx);
      const repl = start();
      await repl.screen.waitFor(/Jarvis› /);
      let mark = repl.screen.output().length;
      repl.type("please run the tests\r");
      await repl.screen.waitFor(/Allow "npm test --version"\?/, { from: mark });
      repl.type(key);
      await repl.screen.waitFor(/\[d\]eny always stop\n[\s\S]*\(interrupted\)\nJarvis› /, { from: mark });
      ctx.expect(repl.screen.output().slice(mark)).not.toContain("The command said");
      ctx.expect(server.requests).toHaveLength(1);
      mark = repl.screen.output().length;
      repl.type("hello\r");
      await repl.screen.waitFor(/Hello there/, { from: mark });
      // The interrupted call was answered in the session, so the next request is valid (the server checks every one).
      ctx.expect(server.requests).toHaveLength(2);
      repl.type("/exit\r");
      ctx.expect((await repl.done).code).toBe(0);
    });
  }

  it("exits on Ctrl-D and on two Ctrl-C at an empty prompt", async (ctx) => {
    const { start } = await openIn(ctx);
    let repl = start();
    await repl.screen.waitFor(/Jarvis› /);
    repl.type("\x04");
    ctx.expect((await repl.done).code).toBe(0);

    repl = start();
    await repl.screen.waitFor(/Jarvis› /);
    repl.type("\x03");
    await repl.screen.waitFor(/press Ctrl-C again or Ctrl-D to exit/);
    repl.type("\x03");
    ctx.expect((await repl.done).code).toBe(0);
  });

  it("without credentials prints the guidance with the demo pointer and exits 1", async ({ expect }) => {
    const dir = await tempDir("miniclaw-repl-");
    const repl = startMain([], { env: cleanEnv(), cwd: dir, terminal: true });
    expect((await repl.done).code).toBe(1);
    expect(repl.screen.output()).toMatch(/ANTHROPIC_API_KEY[\s\S]*npm run demo/);
  });
});

describe("the REPL in line mode", () => {
  it("reads one message per line from a pipe and writes replies on stdout (the binary)", async () => {
    const { dir, workspace, env } = await open();
    const run = await runCli(["--workspace", workspace], { env, cwd: dir, input: "hello\nsecond line\n" });
    expect(run.code).toBe(0);
    const [first, second] = run.stdout.split("\n");
    expect(first).toBe("Hello there, streaming word by word for you.");
    expect(second).toBe("I heard: second line");
  });

  it("refuses commands that need approval, since nobody can answer on a pipe", async () => {
    const { dir, workspace, env } = await open();
    const run = await runMain(["--workspace", workspace], { env, cwd: dir, input: "run the tests\n" });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/The command said: .*approval/);
  });
});
