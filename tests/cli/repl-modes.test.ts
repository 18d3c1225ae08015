// Permission modes in the REPL on a real terminal: /mode, a change mid-turn, the mode a session reopens in, and exit_plan_mode's question; and exit_plan_mode refused in miniclaw run.
import { access } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionStore } from "../../src/sessions/store.js";
import type { Rule } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { startTerminal, type Terminal } from "../helpers/pty.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

async function open(rules: Rule[]) {
  const model = await scripted(rules);
  const dir = await tempDir("miniclaw-repl-modes-");
  return { model, dir, workspace: join(dir, "ws"), env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) };
}

/** Types a line and resolves to what was printed from then until `until` (default: the next prompt). */
async function say(term: Terminal, line: string, until: RegExp = /› $/): Promise<string> {
  const mark = term.output().length;
  term.type(`${line}\r`);
  await term.waitFor(until, { from: mark });
  return term.output().slice(mark);
}

/** The mode records of a session file: [mode, by] in file order. */
async function modeRecords(workspace: string, key = "agent:main:main"): Promise<string[][]> {
  const records = await new SessionStore(join(workspace, "sessions")).show(key, { all: true });
  return records.flatMap((r) => (r.type === "mode" ? [[r.mode, r.by]] : []));
}

describe("the REPL's permission mode", () => {
  it("/mode shows the mode and what it lets run, switches to any of the five, refuses a bad one, and the prompt names a mode other than default", async () => {
    const { dir, workspace, env } = await open([{ reply: "ok" }]);
    const term = startTerminal(["--workspace", workspace, "--permission-mode", "acceptEdits"], { env, cwd: dir });
    await term.waitFor(/Jarvis \(acceptEdits\)› $/);
    expect(await say(term, "/mode")).toMatch(
      /Permission mode: acceptEdits: file writes and edits inside the working folder and workspace run unasked \(as in default\); commands that may change something are asked about\.\nModes: default, acceptEdits, plan, dontAsk, bypassPermissions\. \/mode MODE switches\.\nJarvis \(acceptEdits\)› $/,
    );
    expect(await say(term, "/mode PLAN")).toMatch(/Permission mode: plan: only what reads runs; .* From the next tool call on\.\nJarvis \(plan\)› $/);
    expect(await say(term, "/mode plan")).toMatch(/Permission mode: plan: .*\(unchanged\)\nJarvis \(plan\)› $/);
    expect(await say(term, "/mode careful")).toMatch(/\/mode careful: must be one of default, acceptEdits, plan, dontAsk, bypassPermissions\. Usage: \/mode \[MODE\]\nJarvis \(plan\)› $/);
    expect(await say(term, "/mode bypasspermissions")).toMatch(/Permission mode: bypassPermissions: everything runs unasked except what exec-approvals\.json denies\. From the next tool call on\.\nJarvis \(bypassPermissions\)› $/);
    expect(await say(term, "/mode default")).toMatch(/Permission mode: default: .*\nJarvis› $/);
    const help = await say(term, "/help");
    expect(help).toMatch(/^ {2}\/mode \[MODE\] +the permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions$/m);
    expect(help).toMatch(/^ {2}\/queue steer\|followup +a line typed during a turn steers it \(the default\), or waits for its end$/m);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 30_000);

  it("a /mode typed while a tool runs applies from the next tool call; the session reopens in it, but never in bypassPermissions", async () => {
    const { dir, workspace, env } = await open([
      { match: { toolResult: { name: "write_file" } }, reply: "write said: {{tool_result}}" },
      { match: { toolResult: { name: "run_command" } }, reply: { toolUses: [{ name: "write_file", input: { path: "notes.txt", content: "x" } }] } },
      { match: /slow then write/, reply: { toolUses: [{ name: "run_command", input: { command: "touch started && sleep 1" } }] } },
      { reply: "I heard: {{user_text}}" },
    ]);
    let term = startTerminal(["--workspace", workspace, "--permission-mode", "bypassPermissions"], { env, cwd: dir });
    await term.waitFor(/Jarvis \(bypassPermissions\)› $/);
    const mark = term.output().length;
    term.type("slow then write\r");
    // Typed once the command runs (its gate check is behind it), as a person would while it works.
    while (!(await access(join(dir, "started")).then(() => true, () => false))) await new Promise((r) => setTimeout(r, 20));
    term.type("/mode plan\r");
    await term.waitFor(/Permission mode: plan: only what reads runs;.*From the next tool call on\.\n/, { from: mark });
    await term.waitFor(/write said: Error: Plan mode is read-only: writing .*notes\.txt is not allowed[\s\S]*Jarvis \(plan\)› $/, { from: mark });
    const shown = term.output().slice(mark);
    expect(shown.split("\n").filter((line) => /^(→|  [✓✗])/.test(line))).toEqual([
      "→ run_command: touch started && sleep 1",
      "  ✓ 2 lines",
      expect.stringMatching(/^→ write_file: .*notes\.txt$/),
      expect.stringMatching(/^  ✗ Error: Plan mode is read-only/),
    ]);
    await expect(access(join(dir, "notes.txt"))).rejects.toThrow();
    expect(await modeRecords(workspace)).toEqual([["bypassPermissions", "user"], ["plan", "user"]]);
    term.type("\x04");
    expect(await term.exited).toBe(0);

    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Permission mode: plan, as this session last recorded \(\/mode default leaves it\)\.\nJarvis \(plan\)› $/);
    await say(term, "/mode bypassPermissions");
    expect(await say(term, "hi")).toMatch(/I heard: hi/);
    term.type("\x04");
    expect(await term.exited).toBe(0);

    term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/This session was last in bypassPermissions mode, which is never restored: starting in default \(\/mode bypassPermissions enters it again\)\.\nJarvis› $/);
    expect(await say(term, "hello")).toMatch(/I heard: hello/);
    expect(await modeRecords(workspace)).toEqual([["bypassPermissions", "user"], ["plan", "user"], ["bypassPermissions", "user"], ["default", "user"]]);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 40_000);

  it("exit_plan_mode shows the plan and asks for the mode: n keeps planning, a goes on in acceptEdits", async () => {
    const { model, dir, workspace, env } = await open([
      { match: { toolResult: { name: "exit_plan_mode", content: /approved/ } }, reply: "Carrying it out." },
      { match: { toolResult: { name: "exit_plan_mode", content: /still in plan mode/ } }, reply: { toolUses: [{ name: "exit_plan_mode", input: { plan: "1. Write notes.txt\n2. Run the tests, twice" } }] } },
      { reply: { toolUses: [{ name: "exit_plan_mode", input: { plan: "1. Write notes.txt\n\x1b[31m2. Run the tests" } }] } },
    ]);
    const term = startTerminal(["--workspace", workspace, "--permission-mode", "plan"], { env, cwd: dir });
    await term.waitFor(/Jarvis \(plan\)› $/);
    const mark = term.output().length;
    term.type("tidy the notes\r");
    await term.waitFor(/Leave plan mode\? \[y\]es, default mode \/ \[a\]ccept edits \/ \[n\]o, keep planning $/, { from: mark });
    expect(term.output().slice(mark)).toContain("→ exit_plan_mode: 1. Write notes.txt \\x1b[31m2. Run the tests\nThe model has a plan and asks to leave plan mode to carry it out:\n  │ 1. Write notes.txt\n  │ \\x1b[31m2. Run the tests\n");
    term.type("d");
    await term.waitFor(/\(y, a or n\) Leave plan mode\?/, { from: mark });
    term.type("n");
    await term.waitFor(/no, keep planning\n[\s\S]*  │ 2\. Run the tests, twice\n[\s\S]*Leave plan mode\? .*keep planning $/, { from: mark });
    term.type("a");
    await term.waitFor(/accept edits\n  approval: allow always — the plan \(leave plan mode and carry out this plan\)\n  ✓ The user approved the plan\. The permission mode is now acceptEdits: .*\nmode: plan → acceptEdits \(plan accepted\)\nCarrying it out\.\n[\s\S]*Jarvis \(acceptEdits\)› $/, { from: mark });
    expect(await modeRecords(workspace)).toEqual([["plan", "user"], ["acceptEdits", "exit_plan_mode"]]);
    expect(model.requests).toHaveLength(3);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 30_000);
});

describe("exit_plan_mode in miniclaw run", () => {
  it("is refused, since nobody can answer: the model is told, the mode stays plan, and the run ends normally", async () => {
    const { dir, workspace, env } = await open([
      { match: { toolResult: { name: "exit_plan_mode" } }, reply: "told: {{tool_result}}" },
      { reply: { toolUses: [{ name: "exit_plan_mode", input: { plan: "1. Write notes.txt" } }] } },
    ]);
    const run = await runMain(["run", "--workspace", workspace, "--permission-mode", "plan", "tidy the notes"], { env, cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^told: Error: .+\n$/);
    expect(run.stderr).toMatch(/→ exit_plan_mode: 1\. Write notes\.txt\n  approval: unavailable — the plan \(leave plan mode and carry out this plan\)\n  ✗ Error: Still in plan mode: .+\n/);
    const key = /session: (\S+)/.exec(run.stderr)![1]!;
    expect(await modeRecords(workspace, key)).toEqual([["plan", "user"]]);
  });
});
