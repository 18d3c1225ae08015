// Server tools through the real SDK client: web_search and web_fetch blocks, citations, usage, pause_turn, and providers without them.
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { reply, startScriptedModel, type Rule, type ScriptedModel, type ScriptedModelOptions } from "../../src/testing/index.js";
import { ask, clientFor } from "../helpers/scripted.js";

type Params = Anthropic.MessageCreateParamsNonStreaming;

const servers: ScriptedModel[] = [];
async function start(rules: Rule[], options: ScriptedModelOptions = {}, maxRetries = 0): Promise<{ server: ScriptedModel; client: Anthropic }> {
  const server = await startScriptedModel(rules, options);
  servers.push(server);
  return { server, client: clientFor(server, maxRetries) };
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const WEB: Anthropic.ToolUnion[] = [
  { type: "web_search_20260318", name: "web_search", max_uses: 5 },
  { type: "web_fetch_20260318", name: "web_fetch", max_uses: 3 },
];
const RESULTS = [
  { url: "https://nodejs.org/en/blog/release/v20.0.0", title: "Node.js 20 is now available!", pageAge: "April 18, 2023" },
  { url: "https://example.com/node20", title: "What is new in Node 20" },
];
const research: Params = { ...ask("when did node 20 come out?"), tools: WEB };
const srvId = expect.stringMatching(/^srvtoolu_\w{24}$/);
const opaque = expect.stringMatching(/^[A-Za-z0-9+/]+=*$/);

function send(client: Anthropic, params: Params, streaming: boolean): Promise<Anthropic.Message> {
  return streaming ? client.messages.stream(params).finalMessage() : client.messages.create(params);
}
const failure = (promise: Promise<unknown>): Promise<InstanceType<typeof Anthropic.APIError>> =>
  promise.then(() => { throw new Error("expected the request to fail"); }, (e: unknown) => e as InstanceType<typeof Anthropic.APIError>);
const textOf = (message: Anthropic.Message): string => message.content.map((b) => (b.type === "text" ? b.text : "")).join("");

describe("server tool replies", () => {
  const script: Rule[] = [
    {
      reply: reply.search("node 20 release date", RESULTS, reply.fetch(RESULTS[0]!.url, { title: "Node.js 20", text: "Node.js 20 was released on April 18, 2023." }, { text: "April 18, 2023.", citations: true })),
    },
  ];

  it.each([false, true])("sends a search, a fetch and cited text, with their usage (streaming %s)", async (streaming) => {
    const { server, client } = await start(script);
    const message = await send(client, research, streaming);
    const direct = { type: "direct" };
    expect(message.content).toEqual([
      { type: "server_tool_use", id: srvId, name: "web_search", input: { query: "node 20 release date" }, caller: direct },
      {
        type: "web_search_tool_result",
        tool_use_id: message.content[0]?.type === "server_tool_use" ? message.content[0].id : "?",
        caller: direct,
        content: [
          { type: "web_search_result", url: RESULTS[0]!.url, title: RESULTS[0]!.title, page_age: "April 18, 2023", encrypted_content: opaque },
          { type: "web_search_result", url: RESULTS[1]!.url, title: RESULTS[1]!.title, page_age: null, encrypted_content: opaque },
        ],
      },
      { type: "server_tool_use", id: srvId, name: "web_fetch", input: { url: RESULTS[0]!.url }, caller: direct },
      {
        type: "web_fetch_tool_result",
        tool_use_id: message.content[2]?.type === "server_tool_use" ? message.content[2].id : "?",
        caller: direct,
        content: {
          type: "web_fetch_result",
          url: RESULTS[0]!.url,
          retrieved_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          content: { type: "document", source: { type: "text", media_type: "text/plain", data: "Node.js 20 was released on April 18, 2023." }, title: "Node.js 20", citations: null },
        },
      },
      {
        type: "text",
        text: "April 18, 2023.",
        citations: [{ type: "web_search_result_location", url: RESULTS[0]!.url, title: RESULTS[0]!.title, cited_text: RESULTS[0]!.title, encrypted_index: opaque }],
      },
    ]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 1, web_fetch_requests: 1 });
    expect(server.rejected).toEqual([]);
  });

  it("streams a server call's input as JSON deltas, its result whole, and citations before the text", async () => {
    const { client } = await start(script);
    const stream = client.messages.stream(research);
    const events: string[] = [];
    stream.on("streamEvent", (event) => {
      const detail = event.type === "content_block_start" ? event.content_block.type : event.type === "content_block_delta" ? event.delta.type : "";
      const name = detail ? `${event.type}:${detail}` : event.type;
      if (events.at(-1) !== name) events.push(name);
    });
    await stream.finalMessage();
    const call = ["content_block_delta:input_json_delta", "content_block_stop"];
    expect(events).toEqual([
      "message_start",
      "content_block_start:server_tool_use", ...call, "content_block_start:web_search_tool_result", "content_block_stop",
      "content_block_start:server_tool_use", ...call, "content_block_start:web_fetch_tool_result", "content_block_stop",
      "content_block_start:text", "content_block_delta:citations_delta", "content_block_delta:text_delta", "content_block_stop",
      "message_delta", "message_stop",
    ]);
  });

  it("reports a failed fetch as the API's error block", async () => {
    const { client } = await start([{ reply: reply.fetch("https://down.example", { error: "url_not_accessible" }, "It is down.") }]);
    const message = await client.messages.create(research);
    expect(message.content[1]).toEqual({ type: "web_fetch_tool_result", tool_use_id: srvId, caller: { type: "direct" }, content: { type: "web_fetch_tool_result_error", error_code: "url_not_accessible" } });
    expect(message.usage.server_tool_use).toEqual({ web_search_requests: 0, web_fetch_requests: 1 });
  });

  it("reports no server_tool_use usage when no server tool ran", async () => {
    const { client } = await start([{ reply: "plain" }]);
    expect((await client.messages.create(research)).usage.server_tool_use ?? null).toBeNull();
  });

  it("answers 500 without retry, naming the rule, when the reply uses a server tool the request does not offer", async () => {
    const { server, client } = await start([{ match: "plain", reply: "ok" }, { reply: reply.search("q", RESULTS, "found") }], {}, 2);
    const offersFetchOnly = { ...ask("search please"), tools: [WEB[1]!] };
    const error = await failure(client.messages.create(offersFetchOnly));
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error.message).toContain("rule 1: the reply uses the server tool web_search, but the request offers no web_search tool");
    expect(server.requests).toHaveLength(1);
  });

  it("answers 500, naming the rule, when a reply asks for citations with no search result to cite", async () => {
    const { client } = await start([{ reply: reply.search("q", [], { text: "Nothing found.", citations: true }) }]);
    const error = await failure(client.messages.create(research));
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(error.message).toContain("rule 0: the reply asks for citations, but none of its serverTools searches has a result to cite");
  });
});

describe("pause_turn with server tools", () => {
  const resumedTurn = (req: { body: Params | Record<string, unknown> }): boolean => (req.body.messages as Anthropic.MessageParam[] | undefined)?.at(-1)?.role === "assistant";
  const rules: Rule[] = [
    { match: { toolResult: { name: "read_file" } }, reply: "Read: {{tool_result}}" },
    { match: (req) => resumedTurn(req) && /notes/.test(JSON.stringify(req.body.messages?.[0])), reply: reply.tool("read_file", { path: "notes.md" }) },
    { match: resumedTurn, reply: "Node 20 came out in April 2023." },
    { reply: reply.thinking("Search first.", reply.search("node 20 release", RESULTS, { stopReason: "pause_turn" })) },
  ];
  const THINKING: Array<[string, NonNullable<Params["thinking"]>]> = [["adaptive", { type: "adaptive" }], ["enabled", { type: "enabled", budget_tokens: 1024 }]];
  const modes = THINKING.flatMap(([name, thinking]) => [false, true].map((streaming) => [name, thinking, streaming] as const));
  const withAssistant = (params: Params, ...contents: Anthropic.ContentBlock[][]): Params => ({
    ...params,
    messages: [...params.messages, ...contents.map((content) => ({ role: "assistant" as const, content: content as Anthropic.ContentBlockParam[] }))],
  });

  it.each(modes)("accepts the paused blocks sent back verbatim as the last message (%s thinking, streaming %s)", async (_name, thinking, streaming) => {
    const { server, client } = await start(rules);
    const first: Params = { ...research, max_tokens: 4096, thinking };
    const paused = await send(client, first, streaming);
    expect(paused.stop_reason).toBe("pause_turn");
    expect(paused.content.map((b) => b.type)).toEqual(["thinking", "server_tool_use", "web_search_tool_result"]);
    const resumed = await send(client, withAssistant(first, paused.content), streaming);
    expect(textOf(resumed)).toBe("Node 20 came out in April 2023.");
    expect(resumed.content.map((b) => b.type)).toEqual(["text"]);
    expect(server.rejected).toEqual([]);
  });

  it.each(THINKING)("continues a resumed turn into a tool loop, its messages merged or not (%s thinking)", async (_name, thinking) => {
    const { server, client } = await start(rules);
    const first: Params = { ...research, max_tokens: 4096, thinking, tools: [...WEB, { name: "read_file", input_schema: { type: "object" } }], messages: [{ role: "user", content: "check my notes" }] };
    const paused = await client.messages.create(first);
    const resumed = await client.messages.create(withAssistant(first, paused.content));
    expect(resumed.content.map((b) => b.type)).toEqual(["tool_use"]);
    const call = resumed.content[0]?.type === "tool_use" ? resumed.content[0].id : "?";
    const result: Anthropic.MessageParam = { role: "user", content: [{ type: "tool_result", tool_use_id: call, content: "buy milk" }] };
    const answer = (...contents: Anthropic.ContentBlock[][]) => client.messages.create({ ...first, messages: [...withAssistant(first, ...contents).messages, result] });
    const merged = await answer([...paused.content, ...resumed.content]);
    const separate = await answer(paused.content, resumed.content);
    expect([textOf(merged), textOf(separate)]).toEqual(["Read: buy milk", "Read: buy milk"]);
    expect(server.rejected).toEqual([]);
  });

  it("refuses the continuation when its thinking was dropped, or a result lost its call", async () => {
    const { server, client } = await start(rules);
    const first: Params = { ...research, thinking: { type: "adaptive" } };
    const paused = await client.messages.create(first);
    const blocks = paused.content;
    const continueWith = (content: Anthropic.ContentBlock[]) => client.messages.create(withAssistant(first, content));
    expect((await failure(continueWith(blocks.slice(1)))).apiMessage).toContain("messages.1.content.0.type: Expected `thinking`, but found `server_tool_use`");
    expect((await failure(continueWith([blocks[0]!, blocks[2]!]))).apiMessage).toContain("web_search_tool_result block(s) provided when no corresponding server_tool_use block");
    expect(server.rejected).toHaveLength(2);
  });
});

describe("a provider without server tools", () => {
  it("refuses typed tools with the API's tag error, and records the request", async () => {
    const { server, client } = await start([{ reply: "ok" }], { serverTools: false });
    const error = await failure(client.messages.create({ ...ask("q"), tools: [{ name: "read_file", input_schema: { type: "object" } }, WEB[0]!] }));
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.apiMessage).toBe("tools.1: Input tag 'web_search_20260318' found using 'type' does not match any of the expected tags: 'custom'");
    expect(server.rejected.map((r) => r.error)).toEqual([error.apiMessage]);
    expect(textOf(await client.messages.create({ ...ask("q"), tools: [{ name: "read_file", input_schema: { type: "object" } }] }))).toBe("ok");
  });
});
