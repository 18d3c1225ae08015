import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { defineTool } from "../../src/tools/define.js";
import type { AgentEvent } from "../../src/types.js";
import { sessionLines, TEST_AGENT, tempWorkspace, turnOptions, scriptedModelPerTest } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();

const userMessages = (lines: Array<Record<string, unknown>>): unknown[] =>
  lines.filter((l) => l["type"] === "message" && (l["message"] as { role: string }).role === "user");

describe("API faults", () => {
  it.each([429, 529, 500])("survives a %i through the SDK's own retries", async (status) => {
    const m = await scripted([{ times: 1, fault: { status, retryAfterMs: 5 } }, { reply: "recovered" }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, ws));
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("recovered");
    expect(m.requests).toHaveLength(2);
  });

  it("gives a clear error when retries are exhausted, stores the user message once, and the next turn works", async () => {
    const m = await scripted([{ times: 3, fault: { status: 529, retryAfterMs: 1 } }, { reply: "back again" }]);
    const ws = await tempWorkspace();
    const failed = await runAgentTurn("k", "first", TEST_AGENT, turnOptions(m, ws));
    expect(failed.stopReason).toBe("error");
    expect(failed.error).toMatch(/529.*overloaded/);
    expect(failed.error).not.toMatch(/\n/);
    expect(userMessages(await sessionLines(ws, "k.jsonl"))).toHaveLength(1);

    const next = await runAgentTurn("k", "second", TEST_AGENT, turnOptions(m, ws));
    expect(next.text).toBe("back again");
    expect(userMessages(await sessionLines(ws, "k.jsonl"))).toHaveLength(2);
  });

  it("retries a stream dropped mid-way, discarding the partial message", async () => {
    const m = await scripted([{ times: 1, fault: { dropAfterEvents: 4 }, reply: "partial text" }, { reply: "complete text" }]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, ws, events));
    expect(result.text).toBe("complete text");
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    const assistant = (await sessionLines(ws, "k.jsonl")).filter((l) => (l["message"] as { role?: string })?.role === "assistant");
    expect(assistant).toHaveLength(1);
  });

  it("retries after an SSE overloaded_error event", async () => {
    const m = await scripted([{ times: 2, fault: { sseError: "overloaded_error", afterEvents: 2 } }, { reply: "fine now" }]);
    const result = await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, await tempWorkspace()));
    expect(result.text).toBe("fine now");
    expect(m.requests).toHaveLength(3);
  });

  it("ends with an error after a bounded number of broken streams", async () => {
    const m = await scripted([{ fault: { sseError: "overloaded_error" } }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, ws));
    expect(result.stopReason).toBe("error");
    expect(result.error).toMatch(/overloaded/);
    expect(m.requests).toHaveLength(4);
  });
});

describe("abort", () => {
  it("resolves as aborted while waiting for a session another turn holds, and the holder finishes", async () => {
    const m = await scripted([{ match: "slow", reply: { text: "took a while", delayMs: 100 } }, { reply: "quick" }]);
    const ws = await tempWorkspace();
    const holder = runAgentTurn("k", "slow one", TEST_AGENT, turnOptions(m, ws));
    await new Promise((r) => setTimeout(r, 30));
    const controller = new AbortController();
    const waiting = runAgentTurn("k", "second", TEST_AGENT, { ...turnOptions(m, ws), signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const second = await waiting;
    expect(second.stopReason).toBe("aborted");
    expect(second.iterations).toBe(0);
    expect((await holder).text).toBe("took a while");
    const third = await runAgentTurn("k", "third", TEST_AGENT, turnOptions(m, ws));
    expect(third.text).toBe("quick");
  });

  it("resolves as aborted mid-stream and the next request is valid", async () => {
    const m = await scripted([
      { match: "slow", fault: { delayMs: 60_000, afterEvents: 4 }, reply: "a reply that never finishes" },
      { reply: "next turn fine" },
    ]);
    const ws = await tempWorkspace();
    const controller = new AbortController();
    const result = await runAgentTurn("k", "slow please", TEST_AGENT, {
      ...turnOptions(m, ws),
      signal: controller.signal,
      onEvent: (e) => e.type === "text_delta" && controller.abort(),
    });
    expect(result.stopReason).toBe("aborted");
    const next = await runAgentTurn("k", "again", TEST_AGENT, turnOptions(m, ws));
    expect(next.text).toBe("next turn fine");
  });

  it("resolves as aborted mid-tool, answering the tool_use with an interruption", async () => {
    const controller = new AbortController();
    const hang = defineTool({
      name: "hang",
      description: "Never finishes.",
      input: z.object({}),
      run: () => {
        setTimeout(() => controller.abort(), 20);
        return new Promise<string>(() => {});
      },
    });
    const m = await scripted([
      { match: "start", reply: { toolUses: [{ name: "hang", input: {} }] } },
      { match: "again", reply: "after interruption" },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "start", TEST_AGENT, { ...turnOptions(m, ws, [], { tools: [hang] }), signal: controller.signal });
    expect(result.stopReason).toBe("aborted");
    const next = await runAgentTurn("k", "again", TEST_AGENT, turnOptions(m, ws, [], { tools: [hang] }));
    expect(next.text).toBe("after interruption");
    const sent = JSON.stringify(m.requests[1]!.body.messages);
    expect(sent).toMatch(/user stopped this turn/);
  });
});

describe("tool failures", () => {
  const failing = defineTool({
    name: "fail",
    description: "Always throws.",
    input: z.object({ n: z.number() }),
    run: () => {
      throw new Error("disk on fire");
    },
  });

  it("answers invalid input with is_error and the loop recovers", async () => {
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "fail", input: { n: "not a number" } }] } },
      { match: { toolResult: { content: /Invalid input for fail: n:/ } }, reply: "I will fix the input" },
    ]);
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { tools: [failing] }));
    expect(result.text).toBe("I will fix the input");
  });

  it("answers a throwing tool and an unknown tool with is_error results, in order", async () => {
    const m = await scripted([
      { match: "go", reply: { toolUses: [{ name: "fail", input: { n: 1 } }, { name: "nope", input: {} }] } },
      { reply: "seen" },
    ]);
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), events, { tools: [failing] }));
    const results = events.filter((e) => e.type === "tool_result");
    expect(results.map((e) => [e.name, e.isError])).toEqual([["fail", true], ["nope", true]]);
    expect(results[0]!.content).toMatch(/disk on fire/);
    expect(results[1]!.content).toMatch(/Unknown tool "nope". Available tools: fail/);
  });

  it("truncates an oversized tool result with a marker saying how much was cut", async () => {
    const big = defineTool({ name: "big", description: "Big output.", input: z.object({}), run: () => "x".repeat(200_000) });
    const m = await scripted([{ match: "go", reply: { toolUses: [{ name: "big", input: {} }] } }, { reply: "ok" }]);
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { tools: [big] }));
    const sent = JSON.stringify(m.requests[1]!.body.messages);
    expect(sent).toMatch(/150000 characters cut/);
    expect(sent.length).toBeLessThan(60_000);
  });
});
