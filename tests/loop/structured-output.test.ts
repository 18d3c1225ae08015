import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { SessionStore } from "../../src/sessions/store.js";
import { ConfigError } from "../../src/errors.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions, scriptedModelPerTest } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();
const Weather = z.object({ city: z.string(), celsius: z.number().int().min(-90).max(60), sources: z.array(z.string()) });

function lastUserText(req: RecordedRequest): string {
  const last = req.body.messages?.at(-1);
  if (!last || typeof last.content === "string") return String(last?.content ?? "");
  return last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

async function storedRecords(ws: string, key: string) {
  return new SessionStore(`${ws}/sessions`).show(key, { all: true });
}

describe("structured output", () => {
  it("resolves with the typed output after two tool calls, sends the schema on every request and stores the output record", async () => {
    const m = await scripted([
      { match: { toolResult: { content: "PARIS" } }, reply: { toolUses: [{ name: "upper", input: { text: "meteo" } }] } },
      { match: { toolResult: { content: "METEO" } }, reply: '{"city":"Paris","celsius":18,"sources":["meteo"]}' },
      { reply: { toolUses: [{ name: "upper", input: { text: "paris" } }] } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "weather in Paris?", TEST_AGENT, { ...turnOptions(m, ws), output: Weather });
    expect(result.stopReason).toBe("end_turn");
    expect(result.output).toEqual({ city: "Paris", celsius: 18, sources: ["meteo"] });
    // Typed from the schema: this line only compiles because output is z.infer<typeof Weather> | undefined.
    const celsius: number | undefined = result.output?.celsius;
    expect(celsius).toBe(18);
    expect(m.requests).toHaveLength(3);
    for (const req of m.requests) {
      expect(req.body.output_config).toEqual({ format: { type: "json_schema", schema: expect.objectContaining({ type: "object", additionalProperties: false, required: ["city", "celsius", "sources"] }) } });
    }
    const records = await storedRecords(ws, "k");
    const last = records.at(-1)!;
    const answer = records.at(-2)!;
    expect(last).toMatchObject({ type: "output", output: { city: "Paris", celsius: 18, sources: ["meteo"] }, messageId: answer.type === "message" ? answer.id : "?" });
    // A reload sees it, and a fork up to the answer keeps it.
    const store = new SessionStore(`${ws}/sessions`);
    const answerId = answer.type === "message" ? answer.id : "?";
    expect((await store.load("k")).outputs?.map((o) => o.output)).toEqual([{ city: "Paris", celsius: 18, sources: ["meteo"] }]);
    await store.fork("k", "copy", { upToMessageId: answerId });
    expect((await store.load("copy")).outputs?.map((o) => o.messageId)).toEqual([answerId]);
  });

  it("tells the model what was wrong with an invalid answer and resolves with the corrected one", async () => {
    const m = await scripted([
      { match: /did not match/, reply: '{"city":"Oslo","celsius":-3,"sources":[]}' },
      { reply: '{"city":"Oslo","celsius":"cold"}' },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "weather in Oslo?", TEST_AGENT, turnOptions(m, ws, events, { output: Weather }));
    expect(result.stopReason).toBe("end_turn");
    expect(result.output).toEqual({ city: "Oslo", celsius: -3, sources: [] });
    expect(result.iterations).toBe(2);
    const correction = lastUserText(m.requests[1]!);
    expect(correction).toContain("celsius");
    expect(correction).toContain("sources");
    const outputs = (await storedRecords(ws, "k")).filter((r) => r.type === "output");
    expect(outputs).toHaveLength(1);
  });

  it("ends output_invalid with the validation issues once the corrections are used up, and the session stays valid", async () => {
    const m = await scripted([{ match: "again", reply: "all fine" }, { reply: "It is sunny, about 20 degrees." }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "weather?", TEST_AGENT, turnOptions(m, ws, [], { output: Weather, outputRetries: 1 }));
    expect(result.stopReason).toBe("output_invalid");
    expect(result.output).toBeUndefined();
    expect(result.error).toMatch(/did not match the output schema \(2 answers checked\): the answer is not JSON/);
    expect(m.requests).toHaveLength(2);
    expect((await storedRecords(ws, "k")).some((r) => r.type === "output")).toBe(false);
    const next = await runAgentTurn("k", "again", TEST_AGENT, turnOptions(m, ws));
    expect(next.text).toBe("all fine");
  });

  it("accepts a JSON Schema object and enforces its constraints here, though the API is sent them only as descriptions", async () => {
    const schema = {
      type: "object",
      properties: { score: { type: "integer", minimum: 1, maximum: 5 }, reason: { type: "string" } },
      required: ["score", "reason"],
    };
    const m = await scripted([
      { match: /did not match/, reply: '{"score":4,"reason":"solid"}' },
      { reply: '{"score":9,"reason":"great"}' },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "rate it", TEST_AGENT, turnOptions(m, ws, [], { output: schema }));
    expect(result.output).toEqual({ score: 4, reason: "solid" });
    const sent = m.requests[0]!.body.output_config as unknown as { format: { schema: { properties: { score: Record<string, unknown> } } } };
    expect(sent.format.schema.properties.score).toEqual({ type: "integer", description: "{minimum: 1, maximum: 5}" });
    expect(lastUserText(m.requests[1]!)).toMatch(/score/);
  });

  it("reads the answer from the text after a web search, not from what the model said before searching", async () => {
    const m = await scripted([
      {
        reply: {
          content: [
            { type: "text", text: "Let me look that up." },
            { type: "server_tool_use", id: "srvtoolu_w", name: "web_search", input: { query: "paris weather" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_w", content: [{ type: "web_search_result", url: "https://meteo.example/paris", title: "Paris", encrypted_content: "x", page_age: null }] },
            { type: "text", text: '{"city":"Paris",' },
            { type: "text", text: '"celsius":21,"sources":["https://meteo.example/paris"]}' },
          ],
        },
      },
    ]);
    const ws = await tempWorkspace();
    const agent = { ...TEST_AGENT, web: { search: { maxUses: 2 } } };
    const result = await runAgentTurn("k", "weather in Paris?", agent, { ...turnOptions(m, ws), output: Weather });
    expect(result.stopReason).toBe("end_turn");
    expect(result.output).toEqual({ city: "Paris", celsius: 21, sources: ["https://meteo.example/paris"] });
    expect(m.requests).toHaveLength(1);
  });

  it("refuses a schema that does not describe an object before any request", async () => {
    const m = await scripted([{ reply: "unused" }]);
    const ws = await tempWorkspace();
    await expect(runAgentTurn("k", "x", TEST_AGENT, turnOptions(m, ws, [], { output: z.array(z.string()) }))).rejects.toThrow(ConfigError);
    await expect(runAgentTurn("k", "x", TEST_AGENT, turnOptions(m, ws, [], { output: { type: "string" } }))).rejects.toThrow(/must describe an object/);
    expect(m.requests).toHaveLength(0);
  });
});
