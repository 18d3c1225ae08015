// Replies: builders for scripts, placeholder filling, and the API Message a reply becomes.
import { randomBytes } from "node:crypto";
import { estimateTokens, type InputAccount } from "./cache.js";
import { lastToolResultText, lastUserText } from "./conversation.js";
import type { RecordedRequest, Reply, ScriptedStopReason } from "./types.js";

const ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The usage object of a scripted response, as the API spells it. */
export interface ScriptedUsage extends InputAccount {
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
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

/** An id like the API's: the prefix and 24 random base62 characters. */
export function randomId(prefix: string): string {
  return prefix + Array.from(randomBytes(24), (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join("");
}

/** Tiny builders for rules: `reply.text("hi")`, `reply.tool("read_file", { path: "a.txt" })`. */
export const reply = {
  /** A text answer ending the turn. */
  text(text: string, options: Omit<Reply, "text" | "toolUses" | "content"> = {}): Reply {
    return { ...options, text };
  },
  /** One tool call, optionally preceded by text; ends with `tool_use`. */
  tool(name: string, input: unknown, options: { id?: string; text?: string } = {}): Reply {
    const call = options.id === undefined ? { name, input } : { name, input, id: options.id };
    return options.text === undefined ? { toolUses: [call] } : { text: options.text, toolUses: [call] };
  },
  /** Several tool calls in one response. */
  tools(calls: Array<{ name: string; input: unknown; id?: string }>, text?: string): Reply {
    return text === undefined ? { toolUses: calls } : { text, toolUses: calls };
  },
};

/** The fallback reply when no rule matches. */
export function unmatchedReply(req: RecordedRequest): Reply {
  return { text: `scripted model: no rule matched "${lastUserText(req.body)}"` };
}

function fill(value: unknown, req: RecordedRequest): unknown {
  if (typeof value === "string") {
    return value
      .replaceAll("{{tool_result}}", () => lastToolResultText(req.body))
      .replaceAll("{{user_text}}", () => lastUserText(req.body));
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, req));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item, req)]));
  }
  return value;
}

function contentOf(r: Reply, req: RecordedRequest): unknown[] {
  if (r.content !== undefined) return r.content;
  const content: unknown[] = [];
  if (r.text !== undefined && r.text !== "") content.push({ type: "text", text: fill(r.text, req) });
  for (const call of r.toolUses ?? []) {
    content.push({ type: "tool_use", id: call.id ?? randomId("toolu_"), name: call.name, input: fill(call.input, req) });
  }
  return content;
}

function hasToolUse(content: unknown[]): boolean {
  return content.some((b) => typeof b === "object" && b !== null && (b as { type?: unknown }).type === "tool_use");
}

/**
 * The Message answering `req` with `r`. A request with `max_tokens: 0` (cache
 * pre-warming) gets no content and stop reason `max_tokens`.
 */
export function buildMessage(r: Reply, req: RecordedRequest, input: InputAccount, model: string): ScriptedMessage {
  const prewarm = req.body.max_tokens === 0;
  const content = prewarm ? [] : contentOf(r, req);
  const stopReason = prewarm ? "max_tokens" : (r.stopReason ?? (hasToolUse(content) ? "tool_use" : "end_turn"));
  const outputTokens = prewarm ? 0 : (r.outputTokens ?? content.reduce<number>((sum, b) => sum + estimateTokens(b), 0));
  return {
    id: randomId("msg_"),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === "stop_sequence" ? (r.stopSequence ?? null) : null,
    stop_details: null,
    usage: {
      ...input,
      cache_creation: { ephemeral_5m_input_tokens: input.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
      output_tokens: outputTokens,
      service_tier: "standard",
    },
  };
}
