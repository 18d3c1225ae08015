// The scripted model's replies through the real SDK client: JSON, SSE, tool calls, placeholders, rule order.
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { reply, signThinking, startScriptedModel, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import { afterToolCall, ask, clientFor, TEST_MODEL } from "../helpers/scripted.js";

let model: ScriptedModel | undefined;
async function start(rules: Rule[]): Promise<{ server: ScriptedModel; client: Anthropic }> {
  model = await startScriptedModel(rules);
  return { server: model, client: clientFor(model) };
}
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const LONG_TEXT = "Hello there, this reply is long enough to arrive in several chunks.";

describe("startScriptedModel replies", () => {
  it("answers a non-streaming request with a complete Message", async () => {
    const { server, client } = await start([{ match: "hi", reply: { text: LONG_TEXT, outputTokens: 7 } }]);
    const message = await client.messages.create(ask("hi there"));
    expect(message.id).toMatch(/^msg_/);
    expect(message).toMatchObject({ type: "message", role: "assistant", model: TEST_MODEL, stop_reason: "end_turn", stop_sequence: null });
    expect(message.content).toEqual([{ type: "text", text: LONG_TEXT }]);
    expect(message.usage).toMatchObject({ output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ path: "/v1/messages", stream: false, body: { model: TEST_MODEL } });
    expect(server.requests[0]?.headers["anthropic-version"]).toBe("2026-10-21");
  });

  it("streams text in several deltas that the SDK accumulates into the same message", async () => {
    const { client } = await start([{ reply: LONG_TEXT }]);
    const created = await client.messages.create(ask("hello"));
    const stream = client.messages.stream(ask("hello"));
    const deltas: string[] = [];
    stream.on("text", (delta) => deltas.push(delta));
    const final = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThanOrEqual(3);
    expect(deltas.join("")).toBe(LONG_TEXT);
    expect(final.content).toEqual(created.content);
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage).toEqual(created.usage);
  });

  it("sends the real event sequence with SSE framing and one ping", async () => {
    const { server } = await start([{ reply: "abc" }]);
    const response = await fetch(`${server.baseURL}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...ask("x"), stream: true }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const raw = await response.text();
    const names = [...raw.matchAll(/^event: (\w+)\ndata: \{.*\}\n\n/gm)].map((m) => m[1]);
    expect(names).toEqual([
      "message_start", "ping", "content_block_start",
      "content_block_delta", "content_block_delta", "content_block_delta",
      "content_block_stop", "message_delta", "message_stop",
    ]);
  });

  it("streams a tool call's input as several input_json_delta chunks", async () => {
    const input = { path: "notes/todo.md", limit: 20 };
    const { client } = await start([{ reply: reply.tool("read_file", input, { id: "toolu_fixed", text: "Reading." }) }]);
    const stream = client.messages.stream(ask("read my todo"));
    const pieces: string[] = [];
    stream.on("inputJson", (partial) => pieces.push(partial));
    const final = await stream.finalMessage();
    expect(pieces.length).toBeGreaterThanOrEqual(3);
    expect(pieces.join("")).toBe(JSON.stringify(input));
    expect(final.stop_reason).toBe("tool_use");
    expect(final.content).toEqual([
      { type: "text", text: "Reading." },
      { type: "tool_use", id: "toolu_fixed", name: "read_file", input },
    ]);
  });

  it("gives tool calls toolu_ ids and stop reason tool_use by default", async () => {
    const { client } = await start([{ reply: { toolUses: [{ name: "a", input: {} }, { name: "b", input: { x: 1 } }] } }]);
    const message = await client.messages.create(ask("go"));
    expect(message.stop_reason).toBe("tool_use");
    expect(message.content.map((b) => (b.type === "tool_use" ? b.id : ""))).toEqual([expect.stringMatching(/^toolu_\w{24}$/), expect.stringMatching(/^toolu_/)]);
  });

  it("fills {{tool_result}} and {{user_text}} from the request", async () => {
    const { client } = await start([
      { match: { toolResult: { name: "read_file", content: /secret/ } }, reply: "The file says: {{tool_result}}" },
      { reply: "You said: {{user_text}}" },
    ]);
    const after = await client.messages.create({ ...ask(""), messages: afterToolCall("read_file", { path: "a" }, "the secret is 42") });
    expect(after.content).toEqual([{ type: "text", text: "The file says: the secret is 42" }]);
    const plain = await client.messages.create(ask("ping"));
    expect(plain.content).toEqual([{ type: "text", text: "You said: ping" }]);
  });

  it("matches on the system prompt and on functions of the request", async () => {
    const { client } = await start([
      { match: { system: /researcher/ }, reply: "research mode" },
      { match: (req) => req.body.tools?.length === 1, reply: (req) => ({ text: `tools: ${req.body.tools?.map((t) => ("name" in t ? t.name : "?")).join()}` }) },
    ]);
    const researched = await client.messages.create(ask("q", { system: [{ type: "text", text: "You are a researcher." }] }));
    expect(researched.content).toEqual([{ type: "text", text: "research mode" }]);
    const tool = { name: "run_command", input_schema: { type: "object" as const } };
    const withTool = await client.messages.create(ask("q", { tools: [tool] }));
    expect(withTool.content).toEqual([{ type: "text", text: "tools: run_command" }]);
  });

  it("skips a rule once it has fired `times` times, then falls back and records the miss", async () => {
    const { server, client } = await start([
      { match: "hello", times: 1, reply: "first" },
      { match: "hello", times: 1, reply: "second" },
    ]);
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const message = await client.messages.create(ask("hello"));
      texts.push(message.content[0]?.type === "text" ? message.content[0].text : "");
    }
    expect(texts).toEqual(["first", "second", 'scripted model: no rule matched "hello"']);
    expect(server.unmatched).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it("streams raw content blocks back, its thinking signed by the server", async () => {
    const content = [
      { type: "thinking", thinking: "Let me think about this." },
      { type: "text", text: "Done." },
    ];
    const { client } = await start([{ reply: { content, stopReason: "pause_turn" } }]);
    const final = await client.messages.stream(ask("think", { thinking: { type: "adaptive" } })).finalMessage();
    expect(final.content).toEqual([
      { type: "thinking", thinking: "Let me think about this.", signature: signThinking("Let me think about this.") },
      { type: "text", text: "Done." },
    ]);
    expect(final.stop_reason).toBe("pause_turn");
  });

  it("counts tokens with the same estimate as the usage", async () => {
    const { server, client } = await start([{ reply: "ok" }]);
    const counted = await client.messages.countTokens({ model: TEST_MODEL, messages: [{ role: "user", content: "count me" }] });
    const message = await client.messages.create(ask("count me"));
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(counted.input_tokens).toBe(message.usage.input_tokens);
    expect(server.tokenCounts).toHaveLength(1);
    expect(server.requests).toHaveLength(1);
  });

  it("answers unknown routes 404 in the API's error shape", async () => {
    const { client } = await start([{ reply: "ok" }]);
    const error = await client.models.list().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.NotFoundError>).type).toBe("not_found_error");
  });

  it("refuses a rule with neither reply nor fault when starting", async () => {
    await expect(startScriptedModel([{ match: "x" }])).rejects.toThrow(/rule 0 needs a reply or a fault/);
  });
});
