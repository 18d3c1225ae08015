// Thinking through the real SDK client: signed blocks, when the model thinks, and the thinking a tool loop must send back.
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { estimateTokens, reply, signThinking, startScriptedModel, type Rule, type ScriptedModel, type ScriptedModelOptions } from "../../src/testing/index.js";
import { ask, clientFor } from "../helpers/scripted.js";

type Params = Anthropic.MessageCreateParamsNonStreaming;
type Thinking = NonNullable<Params["thinking"]>;

const servers: ScriptedModel[] = [];
async function start(rules: Rule[], options: ScriptedModelOptions = {}): Promise<{ server: ScriptedModel; client: Anthropic }> {
  const server = await startScriptedModel(rules, options);
  servers.push(server);
  return { server, client: clientFor(server) };
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const ADAPTIVE: Thinking = { type: "adaptive" };
const MANUAL: Thinking = { type: "enabled", budget_tokens: 1024 };
const TOOLS: Anthropic.Tool[] = [{ name: "read_file", description: "Reads a file.", input_schema: { type: "object", properties: { path: { type: "string" } } } }];
const PLAN = "The user wants a.txt; read it first.";

function send(client: Anthropic, params: Params, streaming: boolean): Promise<Anthropic.Message> {
  return streaming ? client.messages.stream(params).finalMessage() : client.messages.create(params);
}
const failure = (promise: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> =>
  promise.then(() => { throw new Error("expected the request to fail"); }, (e: unknown) => e as InstanceType<typeof Anthropic.APIError>);
const textOf = (message: Anthropic.Message): string => message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
const signed = (thinking: string) => ({ type: "thinking" as const, thinking, signature: signThinking(thinking) });

/** The rules of a two-step tool loop: think, call read_file, then answer from its result. */
const toolLoop = (thinking: string | string[] = PLAN): Rule[] => [
  { match: { toolResult: { name: "read_file" } }, reply: "a.txt says {{tool_result}}" },
  { reply: reply.thinking(thinking, reply.tool("read_file", { path: "a.txt" })) },
];

/** The request continuing the loop, with the assistant content given (the response's own by default). */
function continued(first: Params, response: Anthropic.Message, content: Anthropic.ContentBlockParam[] = response.content as Anthropic.ContentBlockParam[]): Params {
  const call = response.content.find((b) => b.type === "tool_use");
  return {
    ...first,
    messages: [
      ...first.messages,
      { role: "assistant", content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call?.type === "tool_use" ? call.id : "none", content: "hello" }] },
    ],
  };
}

describe("thinking replies", () => {
  it.each([false, true])("signs thinking blocks and accepts them back in the tool loop (streaming %s)", async (streaming) => {
    const { server, client } = await start(toolLoop());
    const first: Params = { ...ask("read a.txt"), tools: TOOLS, thinking: ADAPTIVE };
    const response = await send(client, first, streaming);
    expect(response.content).toEqual([signed(PLAN), { type: "tool_use", id: expect.stringMatching(/^toolu_/), name: "read_file", input: { path: "a.txt" } }]);
    expect(response.usage.output_tokens_details).toEqual({ thinking_tokens: estimateTokens(PLAN) });
    expect(response.usage.output_tokens).toBeGreaterThan(estimateTokens(PLAN));
    const answer = await send(client, continued(first, response), streaming);
    expect(textOf(answer)).toBe("a.txt says hello");
    expect(server.rejected).toEqual([]);
  });

  it("streams thinking as thinking deltas and one signature delta, redacted thinking whole", async () => {
    const { client } = await start([{ reply: { thinking: "Two words suffice here.", redactedThinking: 1, text: "Hi there" } }]);
    const stream = client.messages.stream({ ...ask("greet me"), thinking: ADAPTIVE });
    const events: string[] = [];
    stream.on("streamEvent", (event) => {
      const detail = event.type === "content_block_start" ? event.content_block.type : event.type === "content_block_delta" ? event.delta.type : "";
      const name = detail ? `${event.type}:${detail}` : event.type;
      if (events.at(-1) !== name) events.push(name);
    });
    const final = await stream.finalMessage();
    expect(events).toEqual([
      "message_start",
      "content_block_start:thinking", "content_block_delta:thinking_delta", "content_block_delta:signature_delta", "content_block_stop",
      "content_block_start:redacted_thinking", "content_block_stop",
      "content_block_start:text", "content_block_delta:text_delta", "content_block_stop",
      "message_delta", "message_stop",
    ]);
    expect(final.content).toEqual([signed("Two words suffice here."), { type: "redacted_thinking", data: expect.any(String) }, { type: "text", text: "Hi there" }]);
  });

  it("accepts thinking signed by another scripted model, as the API accepts it across requests", async () => {
    const { client: recording } = await start([{ reply: reply.thinking("Short answer.", "Yes.") }]);
    const earlier = await recording.messages.create({ ...ask("is it?"), thinking: ADAPTIVE });
    const { server, client } = await start([{ reply: "Still yes." }]);
    const later = await client.messages.create({
      ...ask("is it?"),
      thinking: ADAPTIVE,
      messages: [{ role: "user", content: "is it?" }, { role: "assistant", content: earlier.content as Anthropic.ContentBlockParam[] }, { role: "user", content: "sure?" }],
    });
    expect(textOf(later)).toBe("Still yes.");
    expect(server.rejected).toEqual([]);
  });

  it.each<[string, Thinking | undefined]>([["absent", undefined], ["disabled", { type: "disabled" }]])(
    "leaves the reply's thinking out when thinking is %s",
    async (_name, thinking) => {
      const { client } = await start([{ reply: { thinking: "hidden", redactedThinking: 1, text: "Answer." } }]);
      const message = await client.messages.create(thinking ? { ...ask("q"), thinking } : ask("q"));
      expect(message.content).toEqual([{ type: "text", text: "Answer." }]);
      expect(message.usage.output_tokens_details ?? null).toBeNull();
    },
  );

  it("adds a thinking block of its own under manual thinking, and none under adaptive", async () => {
    const { client } = await start([{ reply: "Plain answer." }]);
    const manual = await client.messages.create({ ...ask("q"), max_tokens: 2048, thinking: MANUAL });
    const adaptive = await client.messages.create({ ...ask("q"), thinking: ADAPTIVE });
    const auto = manual.content[0];
    expect(manual.content.map((b) => b.type)).toEqual(["thinking", "text"]);
    expect(auto?.type === "thinking" && auto.signature === signThinking(auto.thinking) && auto.thinking.length > 0).toBe(true);
    expect(manual.usage.output_tokens_details?.thinking_tokens).toBeGreaterThan(0);
    expect(adaptive.content).toEqual([{ type: "text", text: "Plain answer." }]);
  });

  it("sends the thinking text empty, signed as such, under display omitted", async () => {
    const { server, client } = await start(toolLoop());
    const first: Params = { ...ask("read a.txt"), tools: TOOLS, thinking: { type: "adaptive", display: "omitted" } };
    const response = await client.messages.stream(first).finalMessage();
    expect(response.content[0]).toEqual(signed(""));
    expect(response.usage.output_tokens_details?.thinking_tokens).toBeGreaterThan(0);
    await client.messages.create(continued(first, response));
    expect(server.rejected).toEqual([]);
  });
});

describe("thinking sent back", () => {
  const history = (assistant: unknown[]): Params => ({
    ...ask("q"),
    thinking: ADAPTIVE,
    messages: [{ role: "user", content: "q" }, { role: "assistant", content: assistant as Anthropic.ContentBlockParam[] }, { role: "user", content: "next" }],
  });
  const refused: Array<[string, unknown[], string]> = [
    ["an altered thinking text", [{ ...signed("I will answer."), thinking: "I will not answer." }, { type: "text", text: "ok" }], "messages.1.content.0: Invalid `signature` in `thinking` block"],
    ["an altered signature", [{ ...signed("I will answer."), signature: signThinking("other") }, { type: "text", text: "ok" }], "Invalid `signature` in `thinking` block"],
    ["a missing signature", [{ type: "thinking", thinking: "x" }, { type: "text", text: "ok" }], "messages.1.content.0.thinking.signature: Field required"],
    ["altered redacted data", [{ type: "redacted_thinking", data: Buffer.alloc(80, 7).toString("base64") }, { type: "text", text: "ok" }], "Invalid `data` in `redacted_thinking` block"],
    ["a thinking block with cache_control", [{ ...signed("x"), cache_control: { type: "ephemeral" } }, { type: "text", text: "ok" }], "cache_control: Cache control cannot be set on thinking blocks"],
  ];

  it.each(refused)("refuses %s", async (_name, assistant, expected) => {
    const { server, client } = await start([{ reply: "unreached" }]);
    const error = await failure(client.messages.create(history(assistant)));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.apiMessage).toContain(expected);
    expect(server.rejected.map((r) => r.error)).toEqual([expect.stringContaining(expected)]);
  });

  it("refuses a thinking block in a user message", async () => {
    const { client } = await start([{ reply: "unreached" }]);
    const params: Params = { ...ask("q"), messages: [{ role: "user", content: [signed("mine") as never, { type: "text", text: "q" }] }] };
    expect((await failure(client.messages.create(params))).apiMessage).toBe("messages.0.content.0: thinking blocks may only appear in assistant messages");
  });

  it.each<[string, Thinking, string]>([
    ["adaptive", ADAPTIVE, "messages.1.content.0.type: Expected `thinking`, but found `tool_use`"],
    ["enabled", MANUAL, "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block"],
  ])("refuses a tool loop that dropped the thinking (%s)", async (_name, thinking, expected) => {
    const { server, client } = await start(toolLoop());
    const first: Params = { ...ask("read a.txt"), max_tokens: 4096, tools: TOOLS, thinking };
    const response = await client.messages.create(first);
    const withoutThinking = response.content.filter((b) => b.type !== "thinking") as Anthropic.ContentBlockParam[];
    const error = await failure(client.messages.create(continued(first, response, withoutThinking)));
    expect(error.apiMessage).toContain(expected);
    expect(server.rejected).toHaveLength(1);
  });

  it("refuses a tool loop whose thinking is reordered or swapped for other signed thinking", async () => {
    const { client } = await start(toolLoop(["First thought.", "Second thought."]));
    const first: Params = { ...ask("read a.txt"), tools: TOOLS, thinking: ADAPTIVE };
    const response = await client.messages.create(first);
    const [one, two, call] = response.content as Anthropic.ContentBlockParam[];
    const modified = "`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified";
    for (const content of [[two!, one!, call!], [signed("First thought."), signed("Another thought."), call!], [one!, call!]]) {
      const error = await failure(client.messages.create(continued(first, response, content)));
      expect(error.apiMessage).toContain(content.length === 2 ? "messages.1.content.1.type: Expected `thinking`" : modified);
    }
    expect(textOf(await client.messages.create(continued(first, response)))).toBe("a.txt says hello");
  });

  it("applies only the manual rule to tool calls it did not issue", async () => {
    const { server, client } = await start([{ reply: "done" }]);
    const foreign: Params = {
      ...ask("go"),
      max_tokens: 4096,
      tools: TOOLS,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_elsewhere", name: "read_file", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_elsewhere", content: "x" }] },
      ],
    };
    expect(textOf(await client.messages.create({ ...foreign, thinking: ADAPTIVE }))).toBe("done");
    expect((await failure(client.messages.create({ ...foreign, thinking: MANUAL }))).apiMessage).toContain("Expected `thinking` or `redacted_thinking`, but found `tool_use`");
    expect(server.rejected).toHaveLength(1);
  });

  it("accepts a loop begun without thinking and continued with adaptive thinking or none", async () => {
    const { server, client } = await start(toolLoop());
    const first: Params = { ...ask("read a.txt"), tools: TOOLS };
    const response = await client.messages.create(first);
    expect(response.content.map((b) => b.type)).toEqual(["tool_use"]);
    await client.messages.create({ ...continued(first, response), thinking: ADAPTIVE });
    const thought = await client.messages.create({ ...first, thinking: ADAPTIVE });
    await client.messages.create({ ...continued(first, thought), thinking: { type: "disabled" } });
    expect(server.rejected).toEqual([]);
  });
});
