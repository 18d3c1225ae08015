// Request validation: every malformed request the real API refuses is answered 400 and recorded in `rejected`.
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signThinking, startScriptedModel, validateRequest, type ScriptedModel } from "../../src/testing/index.js";
import { afterToolCall, ask, clientFor, TEST_MODEL } from "../helpers/scripted.js";

type Body = Record<string, unknown>;
const base = (): Body => ({ ...ask("hi") });
const without = (key: string): Body => Object.fromEntries(Object.entries(base()).filter(([k]) => k !== key));
const withMessages = (...messages: unknown[]): Body => ({ ...base(), messages });
const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown) => ({ role: "assistant", content });
const toolUse = (id: string) => ({ type: "tool_use", id, name: "read_file", input: { path: "a" } });
const toolResult = (id: string, content: unknown = "ok") => ({ type: "tool_result", tool_use_id: id, content });
const text = (t: string, cached = false) => (cached ? { type: "text", text: t, cache_control: { type: "ephemeral" } } : { type: "text", text: t });
const tool = (name: string, schema: unknown = { type: "object" }) => ({ name, description: "d", input_schema: schema });
const thinking = (config: unknown, extra: Body = {}): Body => ({ ...base(), max_tokens: 4096, thinking: config, ...extra });
const outputConfig = (config: unknown): Body => ({ ...base(), output_config: config });
const schema = (root: Body): Body => outputConfig({ format: { type: "json_schema", schema: root } });
const closed = (properties: Body): Body => ({ type: "object", properties, additionalProperties: false });
const webTool = (type: string, extra: Body = {}): Body => ({ type, name: type.startsWith("web_search") ? "web_search" : "web_fetch", ...extra });
const serverCall = (id: string) => ({ type: "server_tool_use", id, name: "web_search", input: { query: "q" } });
const searchResult = (id: string) => ({ type: "web_search_tool_result", tool_use_id: id, content: [] });

const invalid: Array<[string, Body, string]> = [
  ["a missing model", without("model"), "model: Field required"],
  ["a missing max_tokens", without("max_tokens"), "max_tokens: Field required"],
  ["a fractional max_tokens", { ...base(), max_tokens: 1.5 }, "max_tokens: Input should be a valid integer"],
  ["a negative max_tokens", { ...base(), max_tokens: -1 }, "greater than or equal to 0"],
  ["temperature", { ...base(), temperature: 0.2 }, "temperature: Extra inputs are not permitted"],
  ["top_p", { ...base(), top_p: 0.9 }, "top_p: Extra inputs are not permitted"],
  ["top_k", { ...base(), top_k: 5 }, "top_k: Extra inputs are not permitted"],
  ["no messages", withMessages(), "messages: at least one message is required"],
  ["a first message from the assistant", withMessages(assistant("hi"), user("hello")), 'the first message must use the "user" role'],
  ["an unknown role", withMessages(user("a"), { role: "tool", content: "x" }), "messages.1.role"],
  ["an empty text block", withMessages(user([text("")])), "messages.0.content.0.text: text content blocks must be non-empty"],
  ["a whitespace text block", withMessages(user([text(" \n")])), "messages.0.content.0.text: text content blocks must contain non-whitespace text"],
  ["whitespace string content", withMessages(user("   ")), "messages.0.content: text content blocks must contain non-whitespace text"],
  ["an empty system block", { ...base(), system: [text("")] }, "system.0.text: text content blocks must be non-empty"],
  ["an empty text block in a tool_result", withMessages(user("go"), assistant([toolUse("t1")]), user([toolResult("t1", [text("")])])), "messages.2.content.0.content.0.text"],
  ["a blank tool_result string", withMessages(user("go"), assistant([toolUse("t1")]), user([toolResult("t1", "  ")])), "messages.2.content.0.content"],
  ["empty string content", withMessages(user("go"), assistant(""), user("again")), "messages.1: all messages must have non-empty content"],
  ["empty block content", withMessages(user([])), "messages.0: all messages must have non-empty content"],
  ["a tool_use answered by plain text", withMessages(user("go"), assistant([toolUse("t1")]), user("what?")), "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1"],
  ["a tool_use as the last message", withMessages(user("go"), assistant([text("ok"), toolUse("t1")])), "ids were found without `tool_result`"],
  ["one of two tool_uses unanswered", withMessages(user("go"), assistant([toolUse("t1"), toolUse("t2")]), user([toolResult("t1")])), "immediately after: t2"],
  ["a tool_result for an unknown id", withMessages(user("go"), assistant([toolUse("t1")]), user([toolResult("t1"), toolResult("t9")])), "unexpected `tool_use_id` found in `tool_result` blocks: t9"],
  ["a tool_result with no tool_use before it", withMessages(user([toolResult("t1")])), "unexpected `tool_use_id`"],
  ["duplicate tool_results", withMessages(user("go"), assistant([toolUse("t1")]), user([toolResult("t1"), toolResult("t1")])), "Found multiple `tool_result` blocks with id: t1"],
  ["a tool_result after text", withMessages(user("go"), assistant([toolUse("t1")]), user([text("note"), toolResult("t1")])), "tool_result blocks must come before any other content"],
  ["a tool_use in a user message", withMessages(user([toolUse("t1")])), "tool_use blocks may only appear in assistant messages"],
  ["five cache breakpoints", withMessages(user([1, 2, 3, 4, 5].map((n) => text(`part ${n}`, true)))), "A maximum of 4 blocks with cache_control may be provided. Found 5."],
  ["four breakpoints plus automatic caching", { ...withMessages(user([1, 2, 3, 4].map((n) => text(`p${n}`, true)))), cache_control: { type: "ephemeral" } }, "Found 5."],
  ["duplicate tool names", { ...base(), tools: [tool("read_file"), tool("read_file")] }, 'Tool names must be unique. "read_file"'],
  ["a non-object input_schema", { ...base(), tools: [tool("ls", { type: "string" })] }, "tools.0.custom.input_schema.type: Input should be 'object'"],
  ["an unknown thinking type", thinking({ type: "sometimes" }), "thinking: Input tag 'sometimes' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'"],
  ["manual thinking without a budget", thinking({ type: "enabled" }), "thinking.enabled.budget_tokens: Field required"],
  ["a fractional thinking budget", thinking({ type: "enabled", budget_tokens: 1500.5 }), "thinking.enabled.budget_tokens: Input should be a valid integer"],
  ["a thinking budget under 1024", thinking({ type: "enabled", budget_tokens: 1023 }), "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"],
  ["a thinking budget not below max_tokens", thinking({ type: "enabled", budget_tokens: 2048 }, { max_tokens: 2048 }), "`max_tokens` must be greater than `thinking.budget_tokens`"],
  ["a budget on adaptive thinking", thinking({ type: "adaptive", budget_tokens: 2000 }), "thinking.adaptive.budget_tokens: Extra inputs are not permitted"],
  ["an unknown thinking display", thinking({ type: "adaptive", display: "full" }), "thinking.adaptive.display: Input should be 'summarized' or 'omitted'"],
  ["manual thinking with tool_choice any", thinking({ type: "enabled", budget_tokens: 1024 }, { tools: [tool("ls")], tool_choice: { type: "any" } }), "Thinking may not be enabled when tool_choice forces tool use."],
  ["adaptive thinking with a named tool_choice", thinking({ type: "adaptive" }, { tools: [tool("ls")], tool_choice: { type: "tool", name: "ls" } }), "Thinking may not be enabled when tool_choice forces tool use."],
  ["an unknown effort", outputConfig({ effort: "extreme" }), "output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'"],
  ["an unknown output_config key", outputConfig({ effort: "low", verbosity: "high" }), "output_config.verbosity: Extra inputs are not permitted"],
  ["a format that is not json_schema", outputConfig({ format: { type: "json", schema: closed({}) } }), "output_config.format.type: Input should be 'json_schema'"],
  ["an unknown format key", outputConfig({ format: { type: "json_schema", name: "answer", schema: closed({}) } }), "output_config.format.name: Extra inputs are not permitted"],
  ["a format without a schema", outputConfig({ format: { type: "json_schema" } }), "output_config.format.schema: Field required"],
  ["a schema whose root is an array", schema({ type: "array", items: closed({}) }), "output_config.format.schema.type: The root schema must have type 'object'"],
  ["an open root schema", schema({ type: "object", properties: { a: { type: "string" } } }), "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"],
  ["an open nested object", schema(closed({ address: { type: "object", properties: { city: { type: "string" } } } })), "output_config.format.schema.properties.address: For 'object' type"],
  ["an open object in array items", schema(closed({ tags: { type: "array", items: { type: "object", additionalProperties: true } } })), "output_config.format.schema.properties.tags.items: For 'object' type"],
  ["an open object in $defs via anyOf", schema({ ...closed({ p: { anyOf: [{ $ref: "#/$defs/point" }, { type: "null" }] } }), $defs: { point: { type: ["object", "null"] } } }), "output_config.format.schema.$defs.point: For 'object' type"],
  ["a web_search tool with another name", { ...base(), tools: [{ type: "web_search_20260318", name: "search" }] }, "tools.0.web_search_20260318.name: Input should be 'web_search'"],
  ["an unknown web_fetch version", { ...base(), tools: [webTool("web_fetch_20990101")] }, "tools.0: Input tag 'web_fetch_20990101' found using 'type' does not match any of the expected tags"],
  ["a web tool with max_uses 0", { ...base(), tools: [webTool("web_fetch_20260318", { max_uses: 0 })] }, "tools.0.web_fetch_20260318.max_uses: Input should be greater than or equal to 1"],
  ["a web tool with a fractional max_uses", { ...base(), tools: [webTool("web_search_20250305", { max_uses: 1.5 })] }, "tools.0.web_search_20250305.max_uses: Input should be a valid integer"],
  ["a web search with both domain lists", { ...base(), tools: [webTool("web_search_20260209", { allowed_domains: ["a.com"], blocked_domains: ["b.com"] })] }, "tools.0.web_search_20260209: Only one of allowed_domains or blocked_domains"],
  ["a server_tool_use in a user message", withMessages(user([serverCall("srvtoolu_1")])), "messages.0.content.0: server_tool_use blocks may only appear in assistant messages"],
  ["a web_search_tool_result in a user message", withMessages(user("go"), assistant([serverCall("srvtoolu_1")]), user([searchResult("srvtoolu_1")])), "messages.2.content.0: web_search_tool_result blocks may only appear in assistant messages"],
  ["a server tool result before its call", withMessages(user("go"), assistant([searchResult("srvtoolu_1"), serverCall("srvtoolu_1")])), "messages.1.content.0: web_search_tool_result block(s) provided when no corresponding server_tool_use block with id srvtoolu_1"],
  ["a server tool result for another call", withMessages(user("go"), assistant([serverCall("srvtoolu_1"), searchResult("srvtoolu_2")])), "with id srvtoolu_2"],
  ["a redacted_thinking block in a user message", withMessages(user([{ type: "redacted_thinking", data: "abc" }, text("hi")])), "messages.0.content.0: redacted_thinking blocks may only appear in assistant messages"],
];

describe("validateRequest through the server", () => {
  let model: ScriptedModel;
  let client: Anthropic;
  beforeAll(async () => {
    model = await startScriptedModel([{ reply: "should not be reached" }]);
    client = clientFor(model, 2);
  });
  afterAll(() => model.close());

  it.each(invalid)("answers 400 for %s", async (_name, body, expected) => {
    const before = model.requests.length;
    const error = await client.messages.create(body as never).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const apiError = error as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiError.status).toBe(400);
    expect(apiError.type).toBe("invalid_request_error");
    expect(apiError.apiMessage).toContain(expected);
    expect(model.requests).toHaveLength(before + 1);
    expect(model.rejected.at(-1)?.error).toContain(expected);
    expect(model.rejected.at(-1)?.body).toEqual(body);
  });
});

describe("validateRequest", () => {
  it("accepts a full conversation with parallel tool results, four breakpoints and a server tool", () => {
    const body = {
      model: TEST_MODEL,
      max_tokens: 0,
      system: [text("You are helpful.", true)],
      tools: [{ ...tool("read_file"), cache_control: { type: "ephemeral" } }, { type: "web_search_20250305", name: "web_search" }],
      messages: [
        user("read a and b"),
        assistant([text("Reading both."), toolUse("t1"), toolUse("t2")]),
        user([toolResult("t2", [text("B")]), { type: "tool_result", tool_use_id: "t1" }, text("thanks", true)]),
        assistant("Both read."),
        user([text("next", true)]),
      ],
    };
    expect(validateRequest(body)).toBeNull();
  });

  it("accepts thinking, effort, a closed schema, web tools and a paused turn of server blocks", () => {
    const body = {
      model: TEST_MODEL,
      max_tokens: 8192,
      thinking: { type: "enabled", budget_tokens: 4096, display: "summarized" },
      tool_choice: { type: "auto" },
      output_config: { effort: "xhigh", format: { type: "json_schema", schema: { ...closed({ items: { type: "array", items: closed({ n: { type: "integer" } }) } }), required: ["items"] } } },
      tools: [webTool("web_search_20260318", { max_uses: 5, allowed_domains: ["nodejs.org"] }), webTool("web_fetch_20250910", { max_uses: null, blocked_domains: ["x.com"] })],
      messages: [user("search"), assistant([serverCall("srvtoolu_1"), searchResult("srvtoolu_1"), text("Found it.")])],
    };
    expect(validateRequest(body)).toBeNull();
    expect(validateRequest({ ...body, output_config: { effort: null, format: null } })).toBeNull();
  });

  it("refuses typed tools only when told the provider has no server tools", () => {
    const body = { ...base(), tools: [tool("ls"), webTool("web_fetch_20260309")] };
    expect(validateRequest(body)).toBeNull();
    expect(validateRequest(body, { serverTools: false })).toBe("tools.1: Input tag 'web_fetch_20260309' found using 'type' does not match any of the expected tags: 'custom'");
  });

  it("checks a tool loop's thinking against what the lookup says was sent", () => {
    const sent = [{ type: "thinking", thinking: "plan", signature: signThinking("plan") }];
    const loop = (content: unknown[]) => ({ ...thinking({ type: "adaptive" }), messages: [user("go"), assistant(content), user([toolResult("toolu_a")])] });
    const issuedThinking = (id: string) => (id === "toolu_a" ? sent : undefined);
    expect(validateRequest(loop([...sent, toolUse("toolu_a")]), { issuedThinking })).toBeNull();
    expect(validateRequest(loop([toolUse("toolu_a")]), { issuedThinking })).toContain("messages.1.content.0.type: Expected `thinking`, but found `tool_use`");
    expect(validateRequest(loop([toolUse("toolu_a")]))).toBeNull();
  });

  it("refuses an empty tool_result string, stricter than the API", () => {
    const body = withMessages(user("go"), assistant([toolUse("t1")]), user([toolResult("t1", "")]));
    expect(validateRequest(body)).toBe("messages.2.content.0.content: text content blocks must be non-empty");
  });

  it("accepts the tool round trip the helpers build", () => {
    expect(validateRequest({ ...base(), messages: afterToolCall("read_file", { path: "a" }, "text") })).toBeNull();
  });

  it("does not require max_tokens for count_tokens, and refuses non-objects", () => {
    expect(validateRequest(without("max_tokens"), { countTokens: true })).toBeNull();
    expect(validateRequest([1, 2])).toBe("request body must be a JSON object");
  });

  it("answers 400 for a body that is not JSON", async () => {
    const model = await startScriptedModel([{ reply: "x" }]);
    try {
      const response = await fetch(`${model.baseURL}/v1/messages`, { method: "POST", body: "{oops" });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
      expect(model.rejected[0]?.error).toMatch(/error parsing the body/);
    } finally {
      await model.close();
    }
  });
});
