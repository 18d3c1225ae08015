import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModel, validateRequest, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runCli, runMain } from "../helpers/cli.js";
import { startTerminal, type Terminal } from "../helpers/pty.js";

let model: ScriptedModel | undefined;
let term: Terminal | undefined;
afterEach(async () => {
  term?.kill();
  term = undefined;
  expect(model?.rejected ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

const RULES: Rule[] = [
  { match: /^hello/, reply: { text: "Hello there, streaming word by word for you.", delayMs: 5 } },
  { match: /run the tests/, reply: { toolUses: [{ name: "run_command", input: { command: "npm test --version" } }] } },
  { match: { toolResult: { name: "run_command" } }, reply: "The command said: {{tool_result}}" },
  { match: /slow story/, fault: { delayMs: 60_000, afterEvents: 4 }, reply: "Once upon a time, and then it stalls" },
  { reply: "I heard: {{user_text}}" },
];

async function open(rules: Rule[] = RULES) {
  model = await startScriptedModel(rules);
  const dir = await mkdtemp(join(tmpdir(), "miniclaw-repl-"));
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
    for (const request of model!.requests) expect(validateRequest(request.body)).toBeNull();

    mark = term.output().length;
    term.type("/research what is new?\r");
    await term.waitFor(/I heard: what is new\?/, { from: mark });
    expect(JSON.stringify(model!.requests.at(-1)!.body.system)).toMatch(/Scout/);

    mark = term.output().length;
    term.type("/cost\r");
    await term.waitFor(/responses · \d+ tokens in \([\d.]+% read from cache\) · \d+ tokens out · ~\$[\d.]+/, { from: mark });

    mark = term.output().length;
    term.type("/new\r");
    await term.waitFor(/New session agent:main:/, { from: mark });
    term.type("/cost\r");
    await term.waitFor(/No usage yet in this session\.[\s\S]*Jarvis› /, { from: mark });

    const before = model!.requests.length;
    mark = term.output().length;
    term.type("/frobnicate\r");
    await term.waitFor(/Unknown command \/frobnicate\. Type \/help/, { from: mark });
    expect(model!.requests.length).toBe(before);

    term.type("/exit\r");
    expect(await term.exited).toBe(0);
    const history = await readFile(join(workspace, ".history"), "utf8");
    expect(history.split("\n")).toEqual(expect.arrayContaining(["hello", "please run the tests", "/research what is new?"]));
  }, 40_000);

  it("offers the inputs of earlier runs with the up arrow", async () => {
    const { dir, workspace, env } = await open();
    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);
    term.type("remember this line\r");
    await term.waitFor(/I heard: remember this line/);
    term.type("/exit\r");
    await term.exited;
    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);
    const mark = term.output().length;
    term.type("\x1b[A\x1b[A");
    await term.waitFor(/remember this line/, { from: mark });
  });

  it("Ctrl-C at an approval question interrupts the turn, runs nothing, and the next turn works", async () => {
    const { dir, workspace, env } = await open();
    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);
    let mark = term.output().length;
    term.type("please run the tests\r");
    await term.waitFor(/Allow "npm test --version"\?/, { from: mark });
    term.type("\x03");
    await term.waitFor(/\(interrupted\)[\s\S]*Jarvis› /, { from: mark });
    mark = term.output().length;
    term.type("hello\r");
    await term.waitFor(/Hello there/, { from: mark });
    expect(term.output()).not.toMatch(/The command said/);
    term.type("/exit\r");
    expect(await term.exited).toBe(0);
  });

  it("exits on Ctrl-D and on two Ctrl-C at an empty prompt", async () => {
    const { dir, workspace, env } = await open();
    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);
    term.type("\x04");
    expect(await term.exited).toBe(0);

    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);
    term.type("\x03");
    await term.waitFor(/press Ctrl-C again or Ctrl-D to exit/);
    term.type("\x03");
    expect(await term.exited).toBe(0);
  });

  it("without credentials prints the guidance with the demo pointer and exits 1", async () => {
    const dir = await mkdtemp(join(tmpdir(), "miniclaw-repl-"));
    term = startTerminal([], { env: cleanEnv(), cwd: dir });
    expect(await term.exited).toBe(1);
    expect(term.output()).toMatch(/ANTHROPIC_API_KEY[\s\S]*npm run demo/);
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
