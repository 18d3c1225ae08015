import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions, upperTool } from "../helpers/turn.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  expect(model?.rejected ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

const results = (events: AgentEvent[]) => events.flatMap((e) => (e.type === "tool_result" ? [[e.isError, e.content] as const] : []));

describe("tool hooks", () => {
  it("beforeToolUse can deny a call with a reason the model reads, and the tool never runs", async () => {
    model = await startScriptedModel([{ match: "go", reply: { toolUses: [{ name: "upper", input: { text: "secret" } }] } }, { reply: "ok" }]);
    const calls: string[] = [];
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(model, await tempWorkspace(), events, {
      tools: [upperTool(calls)],
      hooks: { beforeToolUse: (call) => (call.name === "upper" ? { decision: "deny", reason: "upper is off today" } : undefined) },
    }));
    expect(calls).toEqual([]);
    expect(results(events)).toEqual([[true, "Denied: upper is off today"]]);
  });

  it("beforeToolUse can rewrite the input, and afterToolUse can rewrite the result", async () => {
    model = await startScriptedModel([{ match: "go", reply: { toolUses: [{ name: "upper", input: { text: "abc" } }] } }, { reply: "{{tool_result}}" }]);
    const calls: string[] = [];
    const after = vi.fn((_call: unknown, result: { content?: unknown }) => ({ ...result, content: `checked: ${JSON.stringify(result.content)}` }));
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(model, await tempWorkspace(), [], {
      tools: [upperTool(calls)],
      hooks: { beforeToolUse: () => ({ decision: "allow", input: { text: "rewritten" } }), afterToolUse: after as never },
    }));
    expect(calls).toEqual(["rewritten"]);
    expect(after).toHaveBeenCalledTimes(1);
    expect(result.text).toMatch(/^checked: .*REWRITTEN/);
  });

  it("a throwing beforeToolUse denies the call instead of breaking the turn", async () => {
    model = await startScriptedModel([{ match: "go", reply: { toolUses: [{ name: "upper", input: { text: "x" } }] } }, { reply: "ok" }]);
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(model, await tempWorkspace(), events, {
      hooks: { beforeToolUse: () => { throw new Error("hook bug"); } },
    }));
    expect(result.stopReason).toBe("end_turn");
    expect(results(events)).toEqual([[true, "Denied: a hook failed: hook bug"]]);
  });

  it("a hook's allow does not beat a denied command", async () => {
    const ws = await tempWorkspace();
    model = await startScriptedModel([{ match: "go", reply: { toolUses: [{ name: "run_command", input: { command: "touch made-it" } }] } }, { reply: "ok" }]);
    const { writeFile } = await import("node:fs/promises");
    await writeFile(join(ws, "exec-approvals.json"), JSON.stringify({ allowed: [], denied: ["touch made-it"] }));
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(model, ws, events, {
      builtinTools: true,
      permissionMode: "bypassPermissions",
      hooks: { beforeToolUse: () => ({ decision: "allow" }) },
    }));
    await expect(stat(join(ws, "made-it"))).rejects.toThrow();
    expect(results(events)[0]![1]).toMatch(/denied/i);
  });
});

describe("permission modes through a turn", () => {
  it("plan mode refuses writes and unsafe commands but runs safe ones", async () => {
    const ws = await tempWorkspace();
    model = await startScriptedModel([
      {
        match: "go",
        reply: {
          toolUses: [
            { name: "write_file", input: { path: "note.txt", content: "hi" } },
            { name: "run_command", input: { command: "touch other.txt" } },
            { name: "run_command", input: { command: "ls" } },
          ],
        },
      },
      { reply: "ok" },
    ]);
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(model, ws, events, { builtinTools: true, permissionMode: "plan" }));
    const [write, touch, ls] = results(events);
    expect(write![0]).toBe(true);
    expect(touch![0]).toBe(true);
    expect(ls![0]).toBe(false);
    await expect(readFile(join(ws, "note.txt"))).rejects.toThrow();
    await expect(stat(join(ws, "other.txt"))).rejects.toThrow();
  });
});
