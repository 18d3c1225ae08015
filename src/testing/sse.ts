// SSE encoding: a complete Message as the real streaming event sequence, and the wire framing of one event.
import { isRecord } from "./conversation.js";
import type { ScriptedMessage } from "./reply.js";

/** One server-sent event: its name and JSON payload. */
export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/** Longest piece of text or JSON sent in one delta. */
const MAX_CHUNK_CHARS = 16;

/** The wire form: `event: <name>\ndata: <json>\n\n`. */
export function formatSse(event: SseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** Text in pieces of whole code points: at least three when it has three or more, none longer than MAX_CHUNK_CHARS. */
function chunkText(text: string): string[] {
  const points = Array.from(text);
  const size = Math.max(1, Math.min(MAX_CHUNK_CHARS, Math.floor(points.length / 3)));
  const chunks: string[] = [];
  for (let i = 0; i < points.length; i += size) chunks.push(points.slice(i, i + size).join(""));
  return chunks;
}

function blockEvents(block: Record<string, unknown>, index: number): SseEvent[] {
  const delta = (d: Record<string, unknown>): SseEvent => ({ event: "content_block_delta", data: { type: "content_block_delta", index, delta: d } });
  let start = block;
  let deltas: SseEvent[] = [];
  if (block.type === "text" && typeof block.text === "string") {
    // Citations come first, one citations_delta each, before the text they cite.
    const citations = Array.isArray(block.citations) ? (block.citations as unknown[]) : undefined;
    start = citations ? { ...block, text: "", citations: [] } : { ...block, text: "" };
    deltas = [...(citations ?? []).map((citation) => delta({ type: "citations_delta", citation })), ...chunkText(block.text).map((text) => delta({ type: "text_delta", text }))];
  } else if ((block.type === "tool_use" || block.type === "server_tool_use") && block.input !== undefined) {
    start = { ...block, input: {} };
    deltas = chunkText(JSON.stringify(block.input)).map((partial_json) => delta({ type: "input_json_delta", partial_json }));
  } else if (block.type === "thinking" && typeof block.thinking === "string") {
    start = { ...block, thinking: "", signature: "" };
    deltas = [...chunkText(block.thinking).map((thinking) => delta({ type: "thinking_delta", thinking })), delta({ type: "signature_delta", signature: String(block.signature ?? "") })];
  }
  return [
    { event: "content_block_start", data: { type: "content_block_start", index, content_block: start } },
    ...deltas,
    { event: "content_block_stop", data: { type: "content_block_stop", index } },
  ];
}

/**
 * The events the API streams for `message`: `message_start` (empty content, the input usage), one `ping`, then per
 * block `content_block_start`, its deltas and `content_block_stop`, then `message_delta` (stop reason, final usage with
 * the thinking and server tool details when present) and `message_stop`. Thinking streams as thinking_deltas and one
 * signature_delta; tool inputs (server tools' too) as input_json_deltas; citations as citations_deltas before the text;
 * other blocks (redacted thinking, server tool results) whole in `content_block_start`.
 */
export function messageEvents(message: ScriptedMessage): SseEvent[] {
  const { output_tokens_details, server_tool_use, ...startUsage } = message.usage;
  const started = { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...startUsage, output_tokens: Math.min(1, startUsage.output_tokens) } };
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = message.usage;
  const usage = { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens, ...(output_tokens_details && { output_tokens_details }), ...(server_tool_use && { server_tool_use }) };
  return [
    { event: "message_start", data: { type: "message_start", message: started } },
    { event: "ping", data: { type: "ping" } },
    ...message.content.flatMap((block, index) => blockEvents(isRecord(block) ? block : {}, index)),
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence, stop_details: null }, usage } },
    { event: "message_stop", data: { type: "message_stop" } },
  ];
}
