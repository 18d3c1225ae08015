import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { SessionStore } from "../../src/sessions/store.js";
import { validateRequest } from "../../src/testing/index.js";
import { buildRequest } from "../../src/loop/request.js";
import type { AgentEvent } from "../../src/types.js";
import { summarizeUsage } from "../../src/model/usage.js";
import { TEST_AGENT, tempWorkspace, turnOptions, upperTool, scriptedModelPerTest } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();

/** The request the loop would send next for this session must pass the API's rules. */
async function expectNextRequestValid(workspace: string, key: string): Promise<void> {
  const loaded = await new SessionStore(`${workspace}/sessions`).load(key);
  const params = buildRequest({
    model: "m",
    maxTokens: 100,
    system: "s",
    tools: [upperTool()],
    messages: [...loaded.messages, { role: "user", content: "next" }],
  });
  expect(validateRequest(params)).toBeNull();
}

describe("stop reasons", () => {
  it.each(["end_turn", "stop_sequence", "refusal"] as const)("ends the turn on %s with a valid session", async (stopReason) => {
    const m = await scripted([{ reply: { text: "final words", stopReason, ...(stopReason === "stop_sequence" && { stopSequence: "END" }) } }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, ws));
    expect(result.stopReason).toBe(stopReason);
    expect(result.text).toBe("final words");
    expect(m.requests).toHaveLength(1);
    await expectNextRequestValid(ws, "k");
  });

  it("continues after pause_turn by sending the paused message back last, and stores the message once, whole", async () => {
    const m = await scripted([
      { times: 1, reply: { text: "working on it. ", stopReason: "pause_turn" } },
      { reply: { text: "finished" } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "long job", TEST_AGENT, turnOptions(m, ws));
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("working on it. finished");
    const second = m.requests[1]!.body.messages!;
    expect(second.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: "working on it. ", cache_control: { type: "ephemeral" } }] });
    const stored = (await new SessionStore(`${ws}/sessions`).show("k", { all: true })).filter((r) => r.type === "message" && r.message.role === "assistant");
    expect(stored.map((r) => (r.type === "message" ? r.message.content : undefined))).toEqual([
      [{ type: "text", text: "working on it. " }, { type: "text", text: "finished" }],
    ]);
    await expectNextRequestValid(ws, "k");
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "next one", TEST_AGENT, turnOptions(m, ws, events));
    expect(events.filter((e) => e.type === "warning")).toEqual([]);
  });

  it("answers a turn the model left without any reply with a note, so the next load warns of nothing", async () => {
    const m = await scripted([{ match: "silent", reply: { content: [] } }, { reply: "back" }]);
    const ws = await tempWorkspace();
    const first = await runAgentTurn("k", "silent please", TEST_AGENT, turnOptions(m, ws));
    expect(first.stopReason).toBe("end_turn");
    const events: AgentEvent[] = [];
    const next = await runAgentTurn("k", "hello", TEST_AGENT, turnOptions(m, ws, events));
    expect(next.text).toBe("back");
    expect(events.filter((e) => e.type === "warning")).toEqual([]);
    expect(JSON.stringify(m.requests[1]!.body.messages)).toMatch(/the model gave no reply/);
  });

  it("stores the usage of responses it did not keep, so the file alone sums the turn's tokens", async () => {
    const m = await scripted([
      { times: 1, reply: { toolUses: [{ name: "upper", input: { text: "cut" } }], stopReason: "max_tokens", outputTokens: 1000 } },
      { match: "go", reply: { toolUses: [{ name: "upper", input: { text: "x" } }], outputTokens: 40 } },
      { reply: { content: [], outputTokens: 7 } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws, [], { maxTokens: 1000 }));
    const records = await new SessionStore(`${ws}/sessions`).show("k", { all: true });
    const fromFile = summarizeUsage(records.filter((r) => r.type === "message"));
    expect(result.usage.outputTokens).toBe(1047);
    expect(fromFile.usage).toEqual(result.usage);
  });

  it("keeps a tool_use id that a server reuses in a later response apart from the first", async () => {
    const calls: string[] = [];
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "upper", input: { text: "a" }, id: "call_0" }] } },
      { match: { toolResult: { content: "A" } }, reply: { toolUses: [{ name: "upper", input: { text: "b" }, id: "call_0" }] } },
      { reply: "{{tool_result}}" },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws, [], { tools: [upperTool(calls)] }));
    expect(calls).toEqual(["a", "b"]);
    expect(result.text).toBe("B");
    const sent = JSON.stringify(m.requests[2]!.body.messages);
    expect(sent).toMatch(/"tool_use_id":"call_0"/);
    expect(sent).toMatch(/"tool_use_id":"call_0_2"/);
    await expectNextRequestValid(ws, "k");
  });

  it("never runs a tool_use cut off by max_tokens: retries once with a larger max_tokens", async () => {
    const calls: string[] = [];
    const m = await scripted([
      { times: 1, reply: { text: "let me", toolUses: [{ name: "upper", input: { text: "cut" } }], stopReason: "max_tokens" } },
      { match: { userText: "go" }, reply: { toolUses: [{ name: "upper", input: { text: "whole" } }] } },
      { reply: { text: "{{tool_result}}" } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws, [], { tools: [upperTool(calls)], maxTokens: 1000 }));
    expect(calls).toEqual(["whole"]);
    expect(result.text).toBe("WHOLE");
    expect(m.requests[0]!.body.max_tokens).toBe(1000);
    expect(m.requests[1]!.body.max_tokens).toBe(2000);
  });

  it("ends with max_tokens when the retry is cut off again, leaving no tool_use unanswered", async () => {
    const calls: string[] = [];
    const m = await scripted([{ reply: { text: "partial", toolUses: [{ name: "upper", input: { text: "cut" } }], stopReason: "max_tokens" } }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws, [], { tools: [upperTool(calls)], maxTokens: 20_000 }));
    expect(result.stopReason).toBe("max_tokens");
    expect(calls).toEqual([]);
    expect(m.requests).toHaveLength(2);
    await expectNextRequestValid(ws, "k");
  });

  it("ends with max_tokens on a cut-off text reply", async () => {
    const m = await scripted([{ reply: { text: "a long answer that was cut", stopReason: "max_tokens" } }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws));
    expect(result.stopReason).toBe("max_tokens");
    expect(result.text).toBe("a long answer that was cut");
    await expectNextRequestValid(ws, "k");
  });

  it("ends on model_context_window_exceeded with a clear error and a valid session", async () => {
    const m = await scripted([{ reply: { text: "", content: [], stopReason: "model_context_window_exceeded" } }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws));
    expect(result.stopReason).toBe("model_context_window_exceeded");
    expect(result.error).toMatch(/context window/);
    await expectNextRequestValid(ws, "k");
  });
});

describe("brakes", () => {
  it("stops at maxIterations with every tool_use answered", async () => {
    let n = 0;
    const m = await scripted([{ reply: () => ({ toolUses: [{ name: "upper", input: { text: `call ${n++}` } }] }) }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "loop forever", TEST_AGENT, turnOptions(m, ws, [], { maxIterations: 3 }));
    expect(result.stopReason).toBe("max_iterations");
    expect(result.iterations).toBe(3);
    expect(m.requests).toHaveLength(3);
    await expectNextRequestValid(ws, "k");
  });

  it("answers the third identical call with an error and ends the turn at the fourth", async () => {
    const calls: string[] = [];
    const m = await scripted([{ reply: { toolUses: [{ name: "upper", input: { text: "same" } }] } }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "repeat", TEST_AGENT, turnOptions(m, ws, [], { tools: [upperTool(calls)] }));
    expect(result.stopReason).toBe("repeated_tool_call");
    expect(calls).toEqual(["same", "same"]);
    const third = m.requests[3]!.body.messages!.at(-1)!.content as Array<{ type: string; is_error?: boolean; content?: unknown }>;
    expect(third[0]).toMatchObject({ type: "tool_result", is_error: true });
    expect(JSON.stringify(third[0]!.content)).toMatch(/change your approach/);
    expect(m.requests).toHaveLength(4);
    await expectNextRequestValid(ws, "k");
  });

  it("stops when the output-token budget is passed, answering the pending calls", async () => {
    const calls: string[] = [];
    const m = await scripted([{ reply: { toolUses: [{ name: "upper", input: { text: "x" } }], outputTokens: 500 } }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "spend", TEST_AGENT, turnOptions(m, ws, [], { tools: [upperTool(calls)], maxOutputTokens: 100 }));
    expect(result.stopReason).toBe("budget_exceeded");
    expect(calls).toEqual([]);
    await expectNextRequestValid(ws, "k");
  });

  it("stops when the dollar budget is passed", async () => {
    let n = 0;
    const m = await scripted([{ reply: () => ({ toolUses: [{ name: "upper", input: { text: `${n++}` } }], outputTokens: 100_000 }) }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "spend", TEST_AGENT, turnOptions(m, ws, [], { maxBudgetUsd: 2 }));
    expect(result.stopReason).toBe("budget_exceeded");
    expect(result.costUsd).toBeGreaterThan(2);
    expect(result.iterations).toBe(2);
  });
});
