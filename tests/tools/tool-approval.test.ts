// Approval declared on a custom tool, through whole turns over the wire: refused where nobody can answer, asked through the
// approver, remembered by name after "always", refused in plan mode unless read-only; the gate asked once per call, before run.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { ApprovalRequest, Approver } from "../../src/deps.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { defineTool, type Access, type NeedsApproval } from "../../src/tools/define.js";
import type { AgentEvent } from "../../src/types.js";
import { TEST_AGENT, scriptedModelPerTest, tempWorkspace, turnOptions } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();

/** A tool with effects the tests can see: each run is recorded. */
function deployTool(runs: string[], options: { needsApproval?: NeedsApproval<{ env: string }>; readOnly?: boolean; name?: string } = {}) {
  return defineTool({
    name: options.name ?? "deploy",
    description: "Deploys the project.",
    input: z.object({ env: z.string() }),
    ...(options.needsApproval !== undefined && { needsApproval: options.needsApproval }),
    ...(options.readOnly !== undefined && { readOnly: options.readOnly }),
    run: ({ env }) => {
      runs.push(env);
      return `deployed to ${env}`;
    },
  });
}

/** A model that calls `tool` once with `input` whenever the user says "go", then says "ok". */
async function callingModel(tool: string, input: object) {
  return scripted([{ match: "go", reply: { toolUses: [{ name: tool, input }] } }, { reply: "ok" }]);
}

const results = (events: AgentEvent[]) => events.flatMap((e) => (e.type === "tool_result" ? [[e.isError, e.content] as const] : []));
const approvals = (events: AgentEvent[]) => events.flatMap((e) => (e.type === "approval" ? [[e.command, e.decision] as const] : []));

describe("a custom tool declared needsApproval: true", () => {
  it("is refused where nobody can answer (the refuse approver of run and cron) and never runs", async () => {
    const m = await callingModel("deploy", { env: "prod" });
    const runs: string[] = [];
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), events, { tools: [deployTool(runs, { needsApproval: true })] }));
    expect(result.stopReason).toBe("end_turn");
    expect(runs).toEqual([]);
    expect(results(events)).toEqual([
      [true, "Error: Not run: deploy needs the user's approval, and nobody is here to give it in this non-interactive run. Do not retry it. Finish without it and say in your reply which call you wanted to make and why, so the user can approve it."],
    ]);
    expect(approvals(events)).toEqual([['deploy {"env":"prod"}', "unavailable"]]);
  });

  it("asks the approver once on always, and a later turn with a new permission context runs it unasked", async () => {
    const m = await callingModel("deploy", { env: "prod" });
    const ws = await tempWorkspace();
    const runs: string[] = [];
    const approver = vi.fn<Approver>(async () => "allow_always");
    const first: AgentEvent[] = [];
    await runAgentTurn("k1", "go", TEST_AGENT, turnOptions(m, ws, first, { tools: [deployTool(runs, { needsApproval: true })], approver }));
    expect(approver.mock.calls).toEqual([[{ tool: "deploy", command: 'deploy {"env":"prod"}', reason: "the tool is declared to need approval", alwaysSaves: "deploy", input: { env: "prod" } } satisfies ApprovalRequest]]);
    expect(JSON.parse(await readFile(join(ws, "exec-approvals.json"), "utf8"))).toEqual({ allowed: ["deploy"], denied: [] });

    const second: AgentEvent[] = [];
    await runAgentTurn("k2", "go", TEST_AGENT, turnOptions(m, ws, second, { tools: [deployTool(runs, { needsApproval: true })], approver }));
    expect(approver).toHaveBeenCalledTimes(1);
    expect(runs).toEqual(["prod", "prod"]);
    expect(results(second)).toEqual([[false, "deployed to prod"]]);
    expect(approvals(second)).toEqual([]);
  });

  it("honours saved names and globs: an allowed glob runs it unasked, a denied name refuses it without asking", async () => {
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "mcp__github__create_issue", input: { env: "a" } }, { name: "deploy", input: { env: "b" } }] } },
      { reply: "ok" },
    ]);
    const ws = await tempWorkspace();
    await writeFile(join(ws, "exec-approvals.json"), JSON.stringify({ allowed: ["mcp__github__*", "*"], denied: ["deploy"] }));
    const runs: string[] = [];
    const approver = vi.fn<Approver>(async () => "allow_once");
    const events: AgentEvent[] = [];
    const tools = [deployTool(runs, { needsApproval: true, name: "mcp__github__create_issue" }), deployTool(runs, { needsApproval: true })];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws, events, { tools, approver }));
    expect(approver).not.toHaveBeenCalled();
    expect(runs).toEqual(["a"]);
    expect(results(events)[1]).toEqual([true, expect.stringMatching(/^Error: The user denied the tool deploy: it is on the denied list/)]);
  });

  it("runs in bypassPermissions without asking", async () => {
    const m = await callingModel("deploy", { env: "prod" });
    const runs: string[] = [];
    const approver = vi.fn<Approver>(async () => "deny_once");
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { tools: [deployTool(runs, { needsApproval: true })], approver, permissionMode: "bypassPermissions" }));
    expect(approver).not.toHaveBeenCalled();
    expect(runs).toEqual(["prod"]);
  });
});

describe("needsApproval as a function", () => {
  it("gets the parsed input and the call's context, and is asked only for the calls it names", async () => {
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "deploy", input: { env: "staging" } }, { name: "deploy", input: { env: "prod" } }] } },
      { reply: "ok" },
    ]);
    const runs: string[] = [];
    const seen: Array<[unknown, string]> = [];
    const tool = defineTool({
      name: "deploy",
      description: "Deploys.",
      // The transform shows the function receives the parsed input, not the model's raw one.
      input: z.object({ env: z.string().transform((env) => env.toUpperCase()) }),
      needsApproval: (input, context) => {
        seen.push([input, context.toolUseId]);
        return input.env === "PROD";
      },
      run: ({ env }) => {
        runs.push(env);
        return `deployed to ${env}`;
      },
    });
    const approver = vi.fn<Approver>(async () => "deny_once");
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), events, { tools: [tool], approver }));
    const ids = events.flatMap((e) => (e.type === "tool_call" ? [e.id] : []));
    expect(seen).toEqual([[{ env: "STAGING" }, ids[0]], [{ env: "PROD" }, ids[1]]]);
    expect(approver).toHaveBeenCalledTimes(1);
    expect(runs).toEqual(["STAGING"]);
    expect(results(events)[1]).toEqual([true, "Error: The user denied this call of deploy. Do not retry it; choose another approach or ask the user what they want."]);
  });

  it("fails closed: a throwing needsApproval refuses the call without running it", async () => {
    const m = await callingModel("deploy", { env: "prod" });
    const runs: string[] = [];
    const needsApproval = (): boolean => {
      throw new Error("policy service down");
    };
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), events, { tools: [deployTool(runs, { needsApproval })], permissionMode: "bypassPermissions" }));
    expect(runs).toEqual([]);
    expect(results(events)).toEqual([[true, "Error: Not run: the permission check of deploy failed (policy service down)."]]);
  });
});

describe("plan mode and custom tools", () => {
  it("refuses a tool that is not read-only, even one that needs no approval, and runs a read-only one", async () => {
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "deploy", input: { env: "prod" } }, { name: "look", input: { env: "prod" } }] } },
      { reply: "ok" },
    ]);
    const runs: string[] = [];
    const events: AgentEvent[] = [];
    const tools = [deployTool(runs), deployTool(runs, { name: "look", readOnly: true, needsApproval: false })];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), events, { tools, permissionMode: "plan" }));
    expect(runs).toEqual(["prod"]);
    expect(results(events)).toEqual([
      [true, "Error: Plan mode is read-only: deploy is not a read-only tool, so it is not called. Describe what you would do with it in your plan instead."],
      [false, "deployed to prod"],
    ]);
    expect(approvals(events)).toEqual([['deploy {"env":"prod"}', "denied"]]);
  });
});

describe("one gate question per call", () => {
  it("parses each input once and reads the readOnly declaration once per call", async () => {
    const m = await scripted([
      { match: "go", reply: { toolUses: [1, 2, 3].map((n) => ({ name: "count", input: { n } })) } },
      { reply: "ok" },
    ]);
    let parses = 0;
    let readOnlyReads = 0;
    const tool = defineTool({
      name: "count",
      description: "Counts.",
      input: z.object({ n: z.number().transform((n) => (parses++, n)) }),
      readOnly: () => (readOnlyReads++, true),
      run: ({ n }) => `n=${n}`,
    });
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), events, { tools: [tool], permissionMode: "plan" }));
    // Read-only calls run in parallel: their tool_result events come in the order they finish.
    expect(results(events).sort((a, b) => a[1].localeCompare(b[1]))).toEqual([[false, "n=1"], [false, "n=2"], [false, "n=3"]]);
    expect([parses, readOnlyReads]).toEqual([3, 3]);
  });
});

describe("a custom tool declared with access", () => {
  /** A tool whose access is a path or a command: the gate's path rules or command judge decide, as for the built-ins. */
  const declared = (runs: string[], access: Access) =>
    defineTool({ name: "publish", description: "Publishes.", input: z.object({ env: z.string() }), access, run: ({ env }) => (runs.push(env), `published to ${env}`) });

  it("is judged by the path rules and the command judge: a read inside the roots and a safe command run unasked, in plan mode too", async () => {
    const m = await callingModel("publish", { env: "prod" });
    const runs: string[] = [];
    const asked = vi.fn<Approver>(async () => "allow_once");
    for (const access of [{ path: "notes.txt" }, { command: "ls" }] as const) {
      await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { tools: [declared(runs, access)], approver: asked, permissionMode: "plan" }));
    }
    expect(runs).toEqual(["prod", "prod"]);
    expect(asked).not.toHaveBeenCalled();
  });

  it("asks about a write outside the roots and an unsafe command, refuses them where nobody can answer, and denies by name first", async () => {
    const m = await callingModel("publish", { env: "prod" });
    const runs: string[] = [];
    for (const access of [{ path: "/etc/hosts", write: true }, { command: "touch x" }] as const) {
      await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { tools: [declared(runs, access)] }));
      const denied = await tempWorkspace();
      await writeFile(join(denied, "exec-approvals.json"), JSON.stringify({ allowed: [], denied: ["publish"] }));
      await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, denied, [], { tools: [declared(runs, { command: "ls" })], approver: async () => "allow_once" }));
    }
    expect(runs).toEqual([]);
    const asked = vi.fn<Approver>(async () => "allow_once");
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { tools: [declared(runs, { command: "touch x" })], approver: asked }));
    expect(asked).toHaveBeenCalledTimes(1);
    expect(runs).toEqual(["prod"]);
  });
});

describe("an approval that arrives after the user interrupted", () => {
  it("never starts the tool: the model was told it did not run", async () => {
    const m = await callingModel("deploy", { env: "prod" });
    const runs: string[] = [];
    const controller = new AbortController();
    const approver: Approver = async () => {
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 50));
      return "allow_once";
    };
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), events, { tools: [deployTool(runs, { needsApproval: true })], approver, signal: controller.signal }));
    expect(result.stopReason).toBe("aborted");
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(runs).toEqual([]);
    expect(results(events)).toEqual([[true, "Interrupted: the user stopped this turn before the tool finished."]]);
  });
});
