import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import type { AgentEvent } from "../../src/types.js";
import { eventTypes, TEST_AGENT, tempWorkspace, turnOptions, upperTool, scriptedModelPerTest } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();

describe("runAgentTurn", () => {
  it("runs a three-round tool loop and answers with the tool's output", async () => {
    const m = await scripted([
      { match: { userText: "shout" }, reply: { toolUses: [{ name: "upper", input: { text: "one" } }] } },
      { match: { toolResult: { content: "ONE" } }, reply: { toolUses: [{ name: "upper", input: { text: "two" } }] } },
      { match: { toolResult: { content: "TWO" } }, reply: { toolUses: [{ name: "upper", input: { text: "three" } }] } },
      { match: { toolResult: { content: "THREE" } }, reply: { text: "Done: {{tool_result}}" } },
    ]);
    const ws = await tempWorkspace();
    const calls: string[] = [];
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("agent:main:main", "shout please", TEST_AGENT, turnOptions(m, ws, events, { tools: [upperTool(calls)] }));
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("Done: THREE");
    expect(result.iterations).toBe(4);
    expect(calls).toEqual(["one", "two", "three"]);
    expect(m.requests).toHaveLength(4);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(eventTypes(events)).toEqual([
      "turn_start",
      ...Array(3).fill(["request_start", "usage", "tool_call", "tool_result"]).flat(),
      "request_start", "text_delta", "usage",
      "turn_end",
    ]);
  });

  it("emits text deltas before the turn ends", async () => {
    const m = await scripted([{ reply: { text: "a fairly long reply that arrives in several pieces", delayMs: 5 } }]);
    const ws = await tempWorkspace();
    const seen: string[] = [];
    let ended = false;
    const result = await runAgentTurn("k", "hi", TEST_AGENT, {
      ...turnOptions(m, ws),
      onEvent: (e) => {
        if (e.type === "text_delta") seen.push(ended ? "late" : e.text);
        if (e.type === "turn_end") ended = true;
      },
    });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen).not.toContain("late");
    expect(seen.join("")).toBe(result.text);
  });

  it("reports usage and an estimated cost summed over the turn", async () => {
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "upper", input: { text: "x" } }], outputTokens: 10 } },
      { reply: { text: "ok", outputTokens: 5 } },
    ]);
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace()));
    expect(result.usage.outputTokens).toBe(15);
    expect(result.usage.inputTokens + result.usage.cacheReadTokens + result.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(result.costUsd).toBeGreaterThan(0);
  });
});
