// The turn's cacheTtl: which breakpoints live an hour, what the writes cost, and a bad value refused in one line.
import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { estimateCostUsd } from "../../src/model/usage.js";
import { scriptedModelPerTest, tempWorkspace, TEST_AGENT, turnOptions } from "../helpers/turn.js";

const startModel = scriptedModelPerTest();
const rules = [{ match: { toolResult: { content: "HI" } }, reply: "done" }, { reply: { toolUses: [{ name: "upper", input: { text: "hi" } }] } }];

describe("cacheTtl", () => {
  it("writes for an hour with 1h, and prices those writes at twice the input price", async () => {
    const model = await startModel(rules);
    const result = await runAgentTurn("agent:main:ttl", "go", TEST_AGENT, turnOptions(model, await tempWorkspace(), [], { cacheTtl: "1h" }));
    expect(result.stopReason).toBe("end_turn");
    expect(result.usage.cacheWrite1hTokens).toBe(result.usage.cacheWriteTokens);
    expect(result.costUsd).toBeCloseTo(estimateCostUsd("claude-test-1", { ...result.usage, cacheWrite1hTokens: 0 }) + (result.usage.cacheWriteTokens * 3 * 0.75) / 1e6, 10);
    const controls = model.requests.map((r) => JSON.stringify(r.body).match(/"ttl":"1h"/g)?.length ?? 0);
    expect(controls).toEqual([3, 4]);
  });

  it("with auto, keeps the tools and system prompt for an hour and the messages for five minutes", async () => {
    const model = await startModel(rules);
    const result = await runAgentTurn("agent:main:ttl", "go", TEST_AGENT, turnOptions(model, await tempWorkspace(), [], { cacheTtl: "auto" }));
    expect(result.stopReason).toBe("end_turn");
    const body = model.requests[1]!.body as { system: Array<{ cache_control: unknown }>; messages: Array<{ content: Array<{ cache_control?: unknown }> }> };
    expect(body.system[0]!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    expect(body.messages.flatMap((m) => m.content.flatMap((b) => (b.cache_control ? [b.cache_control] : [])))).toEqual([{ type: "ephemeral" }, { type: "ephemeral" }]);
    expect(result.usage.cacheWrite1hTokens).toBeGreaterThan(0);
    expect(result.usage.cacheWrite1hTokens).toBeLessThan(result.usage.cacheWriteTokens);
  });

  it("refuses another value in one line", async () => {
    const model = await startModel(rules);
    const options = turnOptions(model, await tempWorkspace(), [], { cacheTtl: "2h" as "1h" });
    await expect(runAgentTurn("agent:main:ttl", "go", TEST_AGENT, options)).rejects.toThrow(/^runAgentTurn options: cacheTtl: must be "5m", "1h" or "auto"$/);
  });
});
