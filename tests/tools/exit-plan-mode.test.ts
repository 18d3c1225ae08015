// exit_plan_mode: the approver is shown the plan and its answer picks the mode the turn goes on in; nobody to ask, or no plan mode, refuses; never bypassPermissions.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { ApprovalRequest, Approver } from "../../src/deps.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import type { ModeHolder } from "../../src/gate/context.js";
import type { Gate, PermissionMode } from "../../src/gate/context.js";
import { exitPlanModeTool } from "../../src/tools/source.js";
import type { AgentEvent, ApprovalDecision } from "../../src/types.js";
import { buildToolContext, makeTempDir } from "../helpers/tool-context.js";
import { TEST_AGENT, scriptedModelPerTest, turnOptions } from "../helpers/turn.js";
import { gatedRun } from "./gated-run.js";

const scripted = scriptedModelPerTest();

const PLAN = "1. Write plan.txt with the word done.\n2. Report back.";
const REQUEST: ApprovalRequest = { tool: "exit_plan_mode", command: PLAN, reason: "leave plan mode and carry out this plan", input: { plan: PLAN } };
const STILL_IN_PLAN =
  "The user did not approve the plan: you are still in plan mode, where only what reads runs. Ask the user what to change, or revise the plan and call exit_plan_mode again.";
const UNAVAILABLE =
  "Error: Still in plan mode: plan mode can only be left by the user, and nobody is here to approve the plan in this non-interactive run. " +
  "Do not call exit_plan_mode again or try to carry out the plan. Finish with the plan as your reply, so the user can approve it and run it in another mode.";

/**
 * A turn in plan mode whose model calls exit_plan_mode (the tool the loop offers in plan mode) with
 * PLAN, then write_file, then ends; the approver answers `decision` and records what it is asked.
 */
async function planTurn(decision: ApprovalDecision | undefined) {
  const ws = await makeTempDir();
  const m = await scripted([
    { match: "go", reply: { toolUses: [{ name: "exit_plan_mode", input: { plan: PLAN } }] } },
    { match: { toolResult: { name: "exit_plan_mode" } }, reply: { toolUses: [{ name: "write_file", input: { path: "plan.txt", content: "done" } }] } },
    { reply: "finished" },
  ]);
  const holder: ModeHolder = { mode: "plan" };
  const asked: ApprovalRequest[] = [];
  const approver: Approver = async (request) => (asked.push(request), decision ?? "unavailable");
  const events: AgentEvent[] = [];
  const options = turnOptions(m, ws, events, { builtinTools: true, permissionMode: holder, ...(decision && { approver }) });
  const result = await runAgentTurn("agent:main:plan", "go", TEST_AGENT, options);
  expect(result.stopReason).toBe("end_turn");
  const results = events.flatMap((e) => (e.type === "tool_result" ? [[e.name, e.isError, e.content] as const] : []));
  const written = await readFile(join(ws, "plan.txt"), "utf8").catch(() => undefined);
  return { ws, holder, asked, events, results, written };
}

describe("exit_plan_mode in a turn in plan mode", () => {
  it("on allow once, continues in default: the approver is shown the plan and the next call writes", async () => {
    const t = await planTurn("allow_once");
    expect(t.asked).toEqual([REQUEST]);
    expect(t.holder.mode).toBe("default");
    expect(t.results).toEqual([
      [
        "exit_plan_mode",
        false,
        "The user approved the plan. The permission mode is now default: files inside the working folder and workspace are written unasked, and the user is asked about other changes and commands. Carry out the plan.",
      ],
      ["write_file", false, expect.stringContaining("plan.txt")],
    ]);
    expect(t.written).toBe("done");
    const approvals = t.events.filter((e) => e.type === "approval");
    expect(approvals).toEqual([{ type: "approval", id: expect.any(String), command: PLAN, decision: "allow_once", reason: REQUEST.reason }]);
  });

  it("on allow always, continues in acceptEdits and saves nothing to the approvals file", async () => {
    const t = await planTurn("allow_always");
    expect(t.asked).toEqual([REQUEST]);
    expect(t.holder.mode).toBe("acceptEdits");
    expect(t.results[0]).toEqual([
      "exit_plan_mode",
      false,
      "The user approved the plan. The permission mode is now acceptEdits: files inside the working folder and workspace are written and edited unasked, and commands that may change something still need the user's approval. Carry out the plan.",
    ]);
    expect(t.written).toBe("done");
    await expect(readFile(join(t.ws, "exec-approvals.json"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it.each(["deny_once", "deny_always"] as const)("on %s, stays in plan mode: the model is told so and the next write is refused", async (decision) => {
    const t = await planTurn(decision);
    expect(t.asked).toEqual([REQUEST]);
    expect(t.holder.mode).toBe("plan");
    expect(t.results).toEqual([
      ["exit_plan_mode", false, STILL_IN_PLAN],
      ["write_file", true, `Error: Plan mode is read-only: writing ${join(t.ws, "plan.txt")} is not allowed. Describe the change in your plan instead.`],
    ]);
    expect(t.written).toBeUndefined();
    await expect(readFile(join(t.ws, "exec-approvals.json"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("where nobody can answer (run, cron), is refused with a sentence saying only the user leaves plan mode", async () => {
    const t = await planTurn(undefined);
    expect(t.holder.mode).toBe("plan");
    expect(t.results).toEqual([
      ["exit_plan_mode", true, UNAVAILABLE],
      ["write_file", true, `Error: Plan mode is read-only: writing ${join(t.ws, "plan.txt")} is not allowed. Describe the change in your plan instead.`],
    ]);
    expect(t.written).toBeUndefined();
  });
});

describe("exit_plan_mode and the modes it may set", () => {
  it("sets the turn's mode only when the user approved the plan", async () => {
    const calls: Array<[string, unknown[]]> = [];
    for (const decision of ["allow_once", "allow_always", "deny_once", "unavailable"] as const) {
      const context = await buildToolContext({ mode: "plan", approver: async () => decision });
      const setMode = vi.spyOn(context.turn!, "setMode");
      await gatedRun(exitPlanModeTool, { plan: PLAN }, context).catch(() => undefined);
      calls.push([decision, setMode.mock.calls]);
    }
    expect(calls).toEqual([
      ["allow_once", [["default"]]],
      ["allow_always", [["acceptEdits"]]],
      ["deny_once", []],
      ["unavailable", []],
    ]);
  });

  it("maps every answer of the approver to default, acceptEdits or plan, never to bypassPermissions", async () => {
    const modes: Record<string, PermissionMode> = {};
    for (const decision of ["allow_once", "allow_always", "deny_once", "deny_always", "unavailable"] as const) {
      const context = await buildToolContext({ mode: "plan", approver: async () => decision });
      await gatedRun(exitPlanModeTool, { plan: PLAN }, context).catch(() => undefined);
      modes[decision] = context.modes.mode;
    }
    expect(modes).toEqual({ allow_once: "default", allow_always: "acceptEdits", deny_once: "plan", deny_always: "plan", unavailable: "plan" });
  });

  it("turns a library gate's bypassPermissions answer into default: only the user enters bypassPermissions", async () => {
    const context = await buildToolContext({ mode: "plan" });
    const gate: Gate = {
      mode: "plan",
      check: (call) => context.gate.check(call),
      askLeavePlan: async () => ({ answered: true, mode: "bypassPermissions" as "default" }),
      deniesTool: (tool) => context.gate.deniesTool(tool),
    };
    const output = await gatedRun(exitPlanModeTool, { plan: PLAN }, { ...context, gate });
    expect(context.modes.mode).toBe("default");
    expect(output).toMatch(/^The user approved the plan\. The permission mode is now default:/);
  });

  it("is refused without asking outside plan mode, and the mode stays", async () => {
    const approver = vi.fn<Approver>(async () => "allow_always");
    const context = await buildToolContext({ approver });
    await expect(gatedRun(exitPlanModeTool, { plan: PLAN }, context)).rejects.toThrow(
      "You are not in plan mode (the permission mode is default): carry on without exit_plan_mode.",
    );
    expect(approver).not.toHaveBeenCalled();
    expect(context.modes.mode).toBe("default");
  });

  it("is refused with the sentence of a run nobody can answer, and the mode stays", async () => {
    const context = await buildToolContext({ mode: "plan" });
    await expect(gatedRun(exitPlanModeTool, { plan: PLAN }, context)).rejects.toThrow(UNAVAILABLE.replace(/^Error: /, ""));
    expect(context.modes.mode).toBe("plan");
  });

  it("is declared read-only and needs no approval from the dispatcher: it asks the user itself", () => {
    const tool = exitPlanModeTool;
    expect([tool.name, tool.access]).toEqual(["exit_plan_mode", "read"]);
    expect(tool.inputSchema).toEqual({
      type: "object",
      properties: { plan: { type: "string", minLength: 1, description: expect.any(String) } },
      required: ["plan"],
    });
  });
});
