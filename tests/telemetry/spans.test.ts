// Telemetry over a real turn against the scripted model: the span tree, the gen_ai attributes, and no message text unless asked.
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { traceTurns } from "../../src/telemetry/index.js";
import { defineTool } from "../../src/tools/define.js";
import { scriptedModelPerTest, tempWorkspace, TEST_AGENT, turnOptions, upperTool } from "../helpers/turn.js";

const startModel = scriptedModelPerTest();
const secretWords = "the launch code is swordfish";
const danger = defineTool({ name: "danger", description: "Does something that needs approval.", input: z.object({ what: z.string() }), access: "ask", run: () => "done" });
const rules = [
  { match: { toolResult: { name: "upper" } }, reply: `All checked: ${secretWords}` },
  { reply: { toolUses: [{ name: "upper", input: { text: secretWords } }, { name: "danger", input: { what: secretWords } }] } },
];

/** Runs one turn with telemetry into an in-memory exporter; resolves to its finished spans. */
async function tracedTurn(content: boolean): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const model = await startModel(rules);
  const options = turnOptions(model, await tempWorkspace(), [], { tools: [upperTool(), danger] });
  const result = await runAgentTurn("agent:main:otel", `Please check: ${secretWords}`, TEST_AGENT, { ...options, onEvent: traceTurns({ tracer: provider.getTracer("test"), content }) });
  expect(result.stopReason).toBe("end_turn");
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

describe("telemetry", () => {
  it("records the turn, each request and each tool call as gen_ai spans in one tree", async () => {
    const spans = await tracedTurn(false);
    // Found by name and iteration, not by start time: spans begun in the same instant tie to the clock's grain.
    expect(spans.map((s) => s.name).sort()).toEqual(["chat claude-test-1", "chat claude-test-1", "execute_tool danger", "execute_tool upper", "invoke_agent main"]);
    const named = (name: string): ReadableSpan => spans.find((s) => s.name === name)!;
    const [turn, upper, dangerSpan] = [named("invoke_agent main"), named("execute_tool upper"), named("execute_tool danger")];
    const [firstChat, lastChat] = spans.filter((s) => s.name.startsWith("chat")).sort((x, y) => Number(x.attributes["miniclaw.iteration"]) - Number(y.attributes["miniclaw.iteration"])) as [ReadableSpan, ReadableSpan];
    expect(turn.parentSpanContext).toBeUndefined();
    for (const child of [firstChat, upper, dangerSpan, lastChat]) {
      expect(child.spanContext().traceId).toBe(turn.spanContext().traceId);
      expect(child.parentSpanContext?.spanId).toBe(turn.spanContext().spanId);
    }
    expect(turn.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.id": "main", "gen_ai.conversation.id": "agent:main:otel", "miniclaw.stop_reason": "end_turn", "miniclaw.iterations": 2 });
    expect(firstChat.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-test-1", "gen_ai.response.model": "claude-test-1", "gen_ai.response.finish_reasons": ["tool_use"] });
    expect(lastChat.attributes["gen_ai.response.finish_reasons"]).toEqual(["end_turn"]);
    for (const key of ["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_creation.input_tokens", "miniclaw.cost_usd"]) expect(firstChat.attributes[key]).toBeGreaterThan(0);
    expect(lastChat.attributes["gen_ai.usage.cache_read.input_tokens"]).toBeGreaterThan(0);
    expect(turn.attributes["miniclaw.cost_usd"]).toBeCloseTo((firstChat.attributes["miniclaw.cost_usd"] as number) + (lastChat.attributes["miniclaw.cost_usd"] as number), 10);
    expect(upper.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "upper", "gen_ai.tool.type": "function" });
    expect(upper.status.code).toBe(0);
    // Nobody can answer the approval: the gate refuses, and the call is an error.
    expect(dangerSpan.attributes).toMatchObject({ "miniclaw.gate.decision": "unavailable", "error.type": "tool_error" });
    expect(dangerSpan.status.code).toBe(2);
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events, s.status]))).not.toMatch(/swordfish|SWORDFISH/);
  });

  it("records the model's text, tool inputs and results only when asked", async () => {
    const spans = await tracedTurn(true);
    const chat = spans.filter((s) => s.name.startsWith("chat")).at(-1)!;
    expect(JSON.parse(chat.attributes["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: `All checked: ${secretWords}` }] }]);
    const upper = spans.find((s) => s.name === "execute_tool upper")!;
    expect(upper.attributes).toMatchObject({ "gen_ai.tool.call.arguments": JSON.stringify({ text: secretWords }), "gen_ai.tool.call.result": secretWords.toUpperCase() });
  });
});
