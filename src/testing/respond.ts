// The HTTP side of the testing servers (scripted model, replay, provider model): listening on 127.0.0.1, reading a request,
// writing JSON bodies, the API's error shape, and a message as the real SSE event sequence, streamed with pauses, cuts and error events.
import { text } from "node:stream/consumers";
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { isRecord } from "./conversation.js";
import type { ScriptedMessage } from "./reply.js";
import { randomId } from "./signature.js";

/** A server listening on 127.0.0.1; `close()` destroys open connections rather than waiting for them. */
export interface LocalServer {
  baseURL: string;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 at `port` (0: a free one); rejects when it cannot listen there. */
export async function listenLocal(handler: RequestListener, port = 0): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const server = createServer(handler);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      }),
  };
}

/** The request's body, read whole, as UTF-8. */
export function readText(req: IncomingMessage): Promise<string> {
  return text(req);
}

/** The request's headers, names lower-cased, repeated ones joined by ", ". */
export function headersOf(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value]])));
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error", 401: "authentication_error", 402: "billing_error", 403: "permission_error", 404: "not_found_error",
  413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 504: "timeout_error", 529: "overloaded_error",
};

/** The HTTP status the API uses for an error type; 500 for one it does not know. */
export function statusFor(errorType: string): number {
  return Number(Object.keys(ERROR_TYPES).find((status) => ERROR_TYPES[Number(status)] === errorType) ?? 500);
}

/** Resolves after `ms`, or at once when `signal` aborts; never rejects. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return delay(ms, undefined, { signal }).catch(() => undefined);
}

/** Writes a JSON response with a `request-id` header, unless the client is gone. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", "request-id": randomId("req_"), ...headers });
  res.end(JSON.stringify(body));
}

/** Writes `{type:"error", error:{type, message}, request_id}` with `status` (the error type the API gives it unless `errorType`). */
export function sendApiError(res: ServerResponse, status: number, message: string, options: { errorType?: string; headers?: Record<string, string> } = {}): void {
  const type = options.errorType ?? ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  sendJson(res, status, { type: "error", error: { type, message }, request_id: randomId("req_") }, options.headers);
}

/** How one stream is played: the pause before each event after the first, pauses once `afterEvents` are written, and a cut. */
export interface StreamPlan {
  eventDelayMs: number;
  pauses: Array<{ afterEvents: number; delayMs: number }>;
  /** After `afterEvents` events: send `event: error` with `error` and end, or, without `error`, destroy the socket. */
  cut?: { afterEvents: number; error?: { type: string; message: string } };
}

function startSse(res: ServerResponse, flush: boolean): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "request-id": randomId("req_") });
  if (flush) res.flushHeaders();
}

/** Streams `events` per `plan`; stops quietly when `signal` aborts (client gone or server closing). */
export async function sendStream(res: ServerResponse, events: SseEvent[], plan: StreamPlan, signal: AbortSignal): Promise<void> {
  if (res.destroyed || signal.aborted) return;
  if (plan.eventDelayMs <= 0 && plan.pauses.length === 0 && !plan.cut) {
    // Nothing to wait for: head and events in one write, as a server sends what it has, not a write (and a client wake-up) per event.
    startSse(res, false);
    return void res.end(events.map(formatSse).join(""));
  }
  startSse(res, true);
  const cutAt = plan.cut ? Math.min(plan.cut.afterEvents, events.length) : Infinity;
  for (let i = 0; i <= events.length; i++) {
    for (const pause of plan.pauses) if (pause.afterEvents === i) await sleep(pause.delayMs, signal);
    if (signal.aborted || res.destroyed) return;
    if (i === cutAt) {
      const error = plan.cut?.error;
      return void (error ? res.end(formatSse({ event: "error", data: { type: "error", error, request_id: randomId("req_") } })) : res.destroy());
    }
    const event = events[i];
    if (!event) break;
    if (i > 0) await sleep(plan.eventDelayMs, signal);
    if (signal.aborted || res.destroyed) return;
    // Resolves once the chunk is handed to the socket, so a cut that follows never loses it.
    await new Promise<void>((resolve) => res.write(formatSse(event), () => resolve()));
  }
  res.end();
}

/** A 200 whose body is not what the client expects: broken JSON, or a broken SSE frame when streaming. */
export function sendMalformed(res: ServerResponse, stream: boolean): void {
  if (res.destroyed || res.headersSent) return;
  if (stream) {
    startSse(res, true);
    return void res.end('event: message_start\ndata: {"type":"message_start","message":\n\n');
  }
  res.writeHead(200, { "content-type": "application/json", "request-id": randomId("req_") });
  res.end("<html>scripted model: malformed body</html>");
}

/** One server-sent event: its name and JSON payload. */
export type SseEvent = { event: string; data: Record<string, unknown> };

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
    deltas = chunkText(block.thinking).map((thinking) => delta({ type: "thinking_delta", thinking }));
    deltas.push(delta({ type: "signature_delta", signature: String(block.signature ?? "") }));
  }
  return [
    { event: "content_block_start", data: { type: "content_block_start", index, content_block: start } },
    ...deltas,
    { event: "content_block_stop", data: { type: "content_block_stop", index } },
  ];
}

/**
 * The events the API streams for `message`, in its order: `message_start`, one `ping`, each block's start, deltas and
 * stop, `message_delta` with the final usage, `message_stop`. Blocks without deltas come whole in `content_block_start`.
 */
export function messageEvents(message: ScriptedMessage): SseEvent[] {
  const { output_tokens_details, server_tool_use, ...startUsage } = message.usage;
  const started = { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...startUsage, output_tokens: Math.min(1, startUsage.output_tokens) } };
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = message.usage;
  const details = { ...(output_tokens_details && { output_tokens_details }), ...(server_tool_use && { server_tool_use }) };
  const usage = { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens, ...details };
  return [
    { event: "message_start", data: { type: "message_start", message: started } },
    { event: "ping", data: { type: "ping" } },
    ...message.content.flatMap((block, index) => blockEvents(isRecord(block) ? block : {}, index)),
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence, stop_details: null }, usage } },
    { event: "message_stop", data: { type: "message_stop" } },
  ];
}
