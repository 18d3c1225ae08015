// Replies: builders for scripts, placeholder filling, and the API Message a reply becomes.
import { estimateTokens, type InputAccount } from "./cache.js";
import { isRecord, isThinkingBlock, lastToolResultText, lastUserText, type LooseBlock } from "./conversation.js";
import { citeFirstResult, serverToolBlocks, serverToolUsage, type ServerToolUsage } from "./server-tools.js";
import { randomId } from "./signature.js";
import { applyThinking, scriptedThinking } from "./thinking.js";
import type { RecordedRequest, Reply, ScriptedFetch, ScriptedSearchResult, ScriptedStopReason } from "./types.js";

/** The usage object of a scripted response, as the API spells it. */
export interface ScriptedUsage extends InputAccount {
  output_tokens: number;
  /** Present when the response carried thinking; its tokens are part of `output_tokens`. */
  output_tokens_details?: { thinking_tokens: number };
  /** Present when the response used server tools. */
  server_tool_use?: ServerToolUsage;
  service_tier: "standard";
}

/** A complete API Message, as `POST /v1/messages` answers it. */
export interface ScriptedMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: unknown[];
  stop_reason: ScriptedStopReason;
  stop_sequence: string | null;
  stop_details: null;
  usage: ScriptedUsage;
}

const asReply = (value: Reply | string): Reply => (typeof value === "string" ? { text: value } : value);

/** Tiny builders for rules: `reply.text("hi")`, `reply.thinking("Plan.", reply.tool("read_file", { path: "a.txt" }))`. */
export const reply = {
  /** A text answer ending the turn. */
  text(text: string, options: Omit<Reply, "text" | "toolUses" | "content"> = {}): Reply {
    return { ...options, text };
  },
  /** One tool call, optionally preceded by text; ends with `tool_use`. */
  tool(name: string, input: unknown, options: { id?: string; text?: string } = {}): Reply {
    return reply.tools([{ name, input, ...(options.id !== undefined && { id: options.id }) }], options.text);
  },
  /** Several tool calls in one response. */
  tools(calls: Array<{ name: string; input: unknown; id?: string }>, text?: string): Reply {
    return text === undefined ? { toolUses: calls } : { text, toolUses: calls };
  },
  /** `then` (a reply, or a string as its text) opened by one or more thinking blocks. */
  thinking(thinking: string | string[], then: Reply | string): Reply {
    return { ...asReply(then), thinking };
  },
  /** A web_search for `query` returning `results`, before what `then` holds (nothing else by default). */
  search(query: string, results: ScriptedSearchResult[], then: Reply | string = {}): Reply {
    const rest = asReply(then);
    return { ...rest, serverTools: [{ search: query, results }, ...(rest.serverTools ?? [])] };
  },
  /** A web_fetch of `url` returning a page (`{title, text}`) or an error code (`{error}`), before what `then` holds. */
  fetch(url: string, page: Omit<ScriptedFetch, "fetch">, then: Reply | string = {}): Reply {
    const rest = asReply(then);
    return { ...rest, serverTools: [{ ...page, fetch: url }, ...(rest.serverTools ?? [])] };
  },
};

function fill(value: unknown, req: RecordedRequest): unknown {
  if (typeof value === "string") return value.replaceAll("{{tool_result}}", () => lastToolResultText(req.body)).replaceAll("{{user_text}}", () => lastUserText(req.body));
  if (Array.isArray(value)) return value.map((item) => fill(item, req));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, req)]));
  return value;
}

function contentOf(r: Reply, req: RecordedRequest): unknown[] {
  if (r.content !== undefined) return r.content;
  const fillText = (text: string): string => fill(text, req) as string;
  const content: LooseBlock[] = [...scriptedThinking(r, fillText), ...serverToolBlocks(r.serverTools ?? [])];
  if (r.text !== undefined && r.text !== "") {
    const text = fillText(r.text);
    content.push(r.citations === true ? { type: "text", text, citations: [citeFirstResult(content)] } : { type: "text", text });
  }
  for (const call of r.toolUses ?? []) content.push({ type: "tool_use", id: call.id ?? randomId("toolu_"), name: call.name, input: fill(call.input, req) });
  return content;
}

function usageOf(content: readonly unknown[], outputTokens: number | undefined, input: InputAccount): ScriptedUsage {
  const output = outputTokens ?? content.reduce<number>((sum, b) => sum + estimateTokens(b), 0);
  const usage: ScriptedUsage = { ...input, output_tokens: output, service_tier: "standard" };
  const thinking = content.filter((b): b is LooseBlock => isRecord(b) && isThinkingBlock(b));
  if (thinking.length > 0) {
    const thinkingTokens = thinking.reduce<number>((sum, b) => sum + estimateTokens(b.type === "thinking" ? b.thinking : b.data), 0);
    usage.output_tokens_details = { thinking_tokens: Math.min(thinkingTokens, output) };
  }
  const servers = serverToolUsage(content);
  if (servers) usage.server_tool_use = servers;
  return usage;
}

/** The Message answering `req`; `max_tokens: 0` (cache pre-warming) gets no content. Throws when the reply cannot be built (see `Reply.citations`). */
export function buildMessage(r: Reply, req: RecordedRequest, input: InputAccount, model: string): ScriptedMessage {
  const prewarm = req.body.max_tokens === 0;
  const content = prewarm ? [] : applyThinking(contentOf(r, req), req.body);
  const stopReason = prewarm ? "max_tokens" : (r.stopReason ?? (content.some((b) => isRecord(b) && b.type === "tool_use") ? "tool_use" : "end_turn"));
  return {
    id: randomId("msg_"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === "stop_sequence" ? (r.stopSequence ?? null) : null,
    stop_details: null,
    usage: usageOf(content, prewarm ? 0 : r.outputTokens, input),
  };
}
