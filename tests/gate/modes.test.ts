// Permission modes through whole turns: every mode against every built-in tool and a custom gated tool, a mode changed mid-turn, and dontAsk's refusals.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalRequest, Approver } from "../../src/deps.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import type { ModeHolder } from "../../src/gate/context.js";
import { PERMISSION_MODES, type PermissionMode } from "../../src/gate/context.js";
import { loadShellParser } from "../../src/shell/shell-parse.js";
import { defineTool } from "../../src/tools/define.js";
import type { AgentEvent } from "../../src/types.js";
import { makeTempDir } from "../helpers/tool-context.js";
import { TEST_AGENT, scriptedModelPerTest, turnOptions } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();

// run_command declares itself read-only only once the shell parser has loaded (its doc says so);
// until then plan mode refuses even `ls`. That race is not what these tables are about.
beforeAll(() => loadShellParser());

/** The approvals file of every workspace here: one denied command and one denied tool name. */
const APPROVALS = JSON.stringify({ allowed: [], denied: ["touch denied.txt", "wipe"] });

/** A custom tool that needs approval, and one the approvals file denies by name; both record their runs. */
function customTools(runs: string[]) {
  const deploy = defineTool({
    name: "deploy",
    description: "Deploys the project.",
    input: z.object({ env: z.string() }),
    needsApproval: true,
    run: ({ env }) => (runs.push(`deploy ${env}`), `deployed to ${env}`),
  });
  const wipe = defineTool({
    name: "wipe",
    description: "Wipes the cache.",
    input: z.object({}),
    readOnly: true,
    run: () => (runs.push("wipe"), "wiped"),
  });
  return [deploy, wipe];
}

type Case = [label: string, tool: string, input: Record<string, unknown>];

/** One call of each kind; `outside` is a folder outside both roots. */
function cases(outside: string): Case[] {
  return [
    ["run_command safe", "run_command", { command: "ls" }],
    ["run_command unsafe", "run_command", { command: "touch made.txt" }],
    ["run_command denied", "run_command", { command: "touch denied.txt" }],
    ["read_file inside", "read_file", { path: "inside.txt" }],
    ["read_file outside", "read_file", { path: join(outside, "outside.txt") }],
    ["write_file inside", "write_file", { path: "written.txt", content: "new" }],
    ["write_file outside", "write_file", { path: join(outside, "written.txt"), content: "new" }],
    ["write_file approvals file", "write_file", { path: "exec-approvals.json", content: APPROVALS }],
    ["edit_file inside", "edit_file", { path: "inside.txt", old_string: "hello", new_string: "hullo" }],
    ["edit_file outside", "edit_file", { path: join(outside, "outside.txt"), old_string: "far", new_string: "near" }],
    ["save_memory", "save_memory", { key: "note", content: "remember the milk" }],
    ["memory_search", "memory_search", { query: "milk" }],
    ["load_skill", "load_skill", { name: "repo-summary" }],
    ["custom needsApproval", "deploy", { env: "prod" }],
    ["custom denied by name", "wipe", {}],
  ];
}

type Outcome = "ran" | "asked" | "refused";

/** Columns in the order of PERMISSION_MODES: plan, dontAsk, default, acceptEdits, bypassPermissions. */
const EXPECTED: Record<string, [Outcome, Outcome, Outcome, Outcome, Outcome]> = {
  "run_command safe": ["ran", "ran", "ran", "ran", "ran"],
  "run_command unsafe": ["refused", "refused", "asked", "asked", "ran"],
  "run_command denied": ["refused", "refused", "refused", "refused", "refused"],
  "read_file inside": ["ran", "ran", "ran", "ran", "ran"],
  "read_file outside": ["asked", "refused", "asked", "asked", "ran"],
  "write_file inside": ["refused", "ran", "ran", "ran", "ran"],
  "write_file outside": ["refused", "refused", "asked", "asked", "ran"],
  "write_file approvals file": ["refused", "refused", "asked", "asked", "ran"],
  "edit_file inside": ["refused", "ran", "ran", "ran", "ran"],
  "edit_file outside": ["refused", "refused", "asked", "asked", "ran"],
  save_memory: ["refused", "ran", "ran", "ran", "ran"],
  memory_search: ["ran", "ran", "ran", "ran", "ran"],
  load_skill: ["ran", "ran", "ran", "ran", "ran"],
  "custom needsApproval": ["refused", "refused", "asked", "asked", "ran"],
  "custom denied by name": ["refused", "refused", "refused", "refused", "refused"],
};

/**
 * How one call ended, from the turn's events: `asked` when the approver was asked (it allows,
 * so the call then ran), `refused` when the gate refused it unasked, `ran` when it ran unasked.
 * Anything else (a tool failure, a refusal after asking) is spelled out, so the table shows it.
 */
function outcomeOf(events: AgentEvent[], id: string): string {
  const decisions = events.flatMap((e) => (e.type === "approval" && e.id === id ? [e.decision] : []));
  const result = events.find((e) => e.type === "tool_result" && e.id === id);
  if (result?.type !== "tool_result") return "no result";
  if (decisions.length === 0) return result.isError ? `failed: ${result.content}` : "ran";
  if (decisions.join() === "allow_once") return result.isError ? `asked, then failed: ${result.content}` : "asked";
  if (decisions.join() === "denied" && result.isError) return "refused";
  return `${decisions.join()}: ${result.content}`;
}

/** A workspace (also the working folder) with the files the calls use, and a folder outside it. */
async function prepareWorkspace(): Promise<{ ws: string; outside: string }> {
  const ws = await makeTempDir();
  const outside = await makeTempDir("miniclaw-outside-");
  await writeFile(join(ws, "exec-approvals.json"), APPROVALS);
  await writeFile(join(ws, "inside.txt"), "hello\n");
  await writeFile(join(outside, "outside.txt"), "far\n");
  return { ws, outside };
}

/** Runs one turn in `mode` whose one response makes every call of `cases`; an approver that allows once records what it is asked. */
async function runEveryCall(mode: PermissionMode) {
  const { ws, outside } = await prepareWorkspace();
  const calls = cases(outside);
  const m = await scripted([
    { match: "go", reply: { toolUses: calls.map(([, name, input], i) => ({ id: `toolu_case${i}`, name, input })) } },
    { reply: "done" },
  ]);
  const asked: ApprovalRequest[] = [];
  const approver: Approver = async (request) => (asked.push(request), "allow_once");
  const events: AgentEvent[] = [];
  const runs: string[] = [];
  const options = turnOptions(m, ws, events, { builtinTools: true, tools: customTools(runs), approver, permissionMode: mode });
  const result = await runAgentTurn("agent:main:modes", "go", TEST_AGENT, options);
  expect(result.stopReason).toBe("end_turn");
  const outcomes = Object.fromEntries(calls.map(([label], i) => [label, outcomeOf(events, `toolu_case${i}`)]));
  return { outcomes, asked, runs };
}

describe("every permission mode against every built-in tool", () => {
  it("runs, asks or refuses each call as the table says, and asks the approver exactly about the asked ones", async () => {
    const table: Record<string, string[]> = {};
    for (const label of Object.keys(EXPECTED)) table[label] = [];
    for (const mode of PERMISSION_MODES) {
      const { outcomes, asked } = await runEveryCall(mode);
      for (const [label, outcome] of Object.entries(outcomes)) table[label]?.push(outcome);
      const askedCount = Object.values(outcomes).filter((o) => o === "asked").length;
      expect([mode, asked.length]).toEqual([mode, askedCount]);
    }
    expect(PERMISSION_MODES).toEqual(["plan", "dontAsk", "default", "acceptEdits", "bypassPermissions"]);
    expect(table).toEqual(EXPECTED);
  });
});

describe("a mode changed through the holder while a turn runs", () => {
  it("applies from the next tool call of the same response", async () => {
    const ws = await makeTempDir();
    const m = await scripted([
      {
        match: "go",
        reply: { toolUses: [{ name: "write_file", input: { path: "first.txt", content: "1" } }, { name: "write_file", input: { path: "second.txt", content: "2" } }] },
      },
      { reply: "done" },
    ]);
    const holder: ModeHolder = { mode: "default" };
    const events: AgentEvent[] = [];
    const onEvent = (event: AgentEvent): void => {
      events.push(event);
      // The user switches to plan mode (the REPL's /mode) as the first call finishes.
      if (event.type === "tool_result" && holder.mode === "default") holder.mode = "plan";
    };
    await runAgentTurn("agent:main:switch", "go", TEST_AGENT, { ...turnOptions(m, ws, events, { builtinTools: true, permissionMode: holder }), onEvent });
    const results = events.flatMap((e) => (e.type === "tool_result" ? [[e.name, e.isError, e.content] as const] : []));
    expect(results).toEqual([
      ["write_file", false, expect.stringContaining("first.txt")],
      ["write_file", true, `Error: Plan mode is read-only: writing ${join(ws, "second.txt")} is not allowed. Describe the change in your plan instead.`],
    ]);
    expect(await readFile(join(ws, "first.txt"), "utf8")).toBe("1");
    await expect(readFile(join(ws, "second.txt"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("applies from the next response: a call refused in dontAsk is asked about once the user switched to default", async () => {
    const ws = await makeTempDir();
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "run_command", input: { command: "touch a.txt" } }] } },
      { match: { toolResult: { content: "dontAsk" } }, reply: { toolUses: [{ name: "run_command", input: { command: "touch a.txt" } }] } },
      { reply: "done" },
    ]);
    const holder: ModeHolder = { mode: "dontAsk" };
    const asked: string[] = [];
    const approver: Approver = async (request) => (asked.push(request.command), "allow_once");
    const events: AgentEvent[] = [];
    const onEvent = (event: AgentEvent): void => {
      events.push(event);
      if (event.type === "tool_result") holder.mode = "default";
    };
    await runAgentTurn("agent:main:switch", "go", TEST_AGENT, { ...turnOptions(m, ws, events, { builtinTools: true, permissionMode: holder, approver }), onEvent });
    const decisions = events.flatMap((e) => (e.type === "approval" ? [e.decision] : []));
    expect(decisions).toEqual(["denied", "allow_once"]);
    expect(asked).toEqual(["touch a.txt"]);
    expect(events.flatMap((e) => (e.type === "tool_result" ? [e.isError] : []))).toEqual([true, false]);
  });
});

describe("dontAsk", () => {
  it("refuses what default would ask about without asking, and tells the model how the user can allow it", async () => {
    const { ws, outside } = await prepareWorkspace();
    const m = await scripted([
      {
        match: "go",
        reply: {
          toolUses: [
            { name: "run_command", input: { command: "touch made.txt" } },
            { name: "read_file", input: { path: join(outside, "outside.txt") } },
            { name: "deploy", input: { env: "prod" } },
          ],
        },
      },
      { reply: "done" },
    ]);
    const asked: ApprovalRequest[] = [];
    const approver: Approver = async (request) => (asked.push(request), "allow_once");
    const events: AgentEvent[] = [];
    const runs: string[] = [];
    await runAgentTurn("agent:main:dont", "go", TEST_AGENT, turnOptions(m, ws, events, { builtinTools: true, tools: customTools(runs), approver, permissionMode: "dontAsk" }));
    expect(asked).toEqual([]);
    expect(runs).toEqual([]);
    const results = events.flatMap((e) => (e.type === "tool_result" ? [[e.isError, e.content] as const] : []));
    expect(results).toEqual([
      [true, expect.stringMatching(/^Error: Not run: `touch made\.txt` needs the user's approval \(.+\), and the permission mode dontAsk refuses without asking/)],
      [true, expect.stringMatching(new RegExp(`^Error: Not allowed: reading ${join(outside, "outside.txt")} needs the user's approval \\(it is outside the allowed folders`))],
      [true, expect.stringMatching(/^Error: Not run: deploy needs the user's approval, and the permission mode dontAsk refuses without asking/)],
    ]);
    expect(results[0]?.[1]).toContain("adding it to the allowed list of exec-approvals.json, or by switching to the default mode (/mode default in the REPL, --permission-mode default on the command line)");
    expect(results[1]?.[1]).toContain("switching to the default mode (/mode default in the REPL, --permission-mode default on the command line) to be asked");
    expect(results[2]?.[1]).toContain("adding deploy to the allowed list of exec-approvals.json");
    const approvals = events.flatMap((e) => (e.type === "approval" ? [[e.command, e.decision] as const] : []));
    expect(approvals).toEqual([
      ["touch made.txt", "denied"],
      [`read ${join(outside, "outside.txt")}`, "denied"],
      ['deploy {"env":"prod"}', "denied"],
    ]);
  });

  it("runs what is on the allowed list of the approvals file, commands and tool names alike", async () => {
    const ws = await makeTempDir();
    await writeFile(join(ws, "exec-approvals.json"), JSON.stringify({ allowed: ["touch made.txt", "deploy"], denied: [] }));
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "run_command", input: { command: "touch made.txt" } }, { name: "deploy", input: { env: "prod" } }] } },
      { reply: "done" },
    ]);
    const events: AgentEvent[] = [];
    const runs: string[] = [];
    await runAgentTurn("agent:main:dont", "go", TEST_AGENT, turnOptions(m, ws, events, { builtinTools: true, tools: customTools(runs), permissionMode: "dontAsk" }));
    expect(events.flatMap((e) => (e.type === "tool_result" ? [e.isError] : []))).toEqual([false, false]);
    expect(runs).toEqual(["deploy prod"]);
    expect(await readFile(join(ws, "made.txt"), "utf8")).toBe("");
  });
});
