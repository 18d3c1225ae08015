// Writing responses: JSON bodies, the API's error shape, and SSE streams with pauses, cuts and error events.
import type { ServerResponse } from "node:http";
import { randomId } from "./ids.js";
import { formatSse, type SseEvent } from "./sse.js";

/** The error type the API uses for each HTTP status. */
export function errorTypeFor(status: number): string {
  const known: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
  };
  return known[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

/** The HTTP status the API uses for an error type (the reverse of `errorTypeFor`). */
export function statusFor(errorType: string): number {
  const known: Record<string, number> = {
    invalid_request_error: 400,
    authentication_error: 401,
    permission_error: 403,
    not_found_error: 404,
    rate_limit_error: 429,
    timeout_error: 504,
    overloaded_error: 529,
  };
  return known[errorType] ?? 500;
}

/** Resolves after `ms`, or at once when `signal` aborts; never rejects. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Writes a JSON response with a `request-id` header, unless the client is gone. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", "request-id": randomId("req_"), ...headers });
  res.end(JSON.stringify(body));
}

/** Writes `{type:"error", error:{type, message}, request_id}` with `status`. */
export function sendApiError(
  res: ServerResponse,
  status: number,
  message: string,
  options: { errorType?: string; headers?: Record<string, string> } = {},
): void {
  const error = { type: options.errorType ?? errorTypeFor(status), message };
  sendJson(res, status, { type: "error", error, request_id: randomId("req_") }, options.headers);
}

/** How one stream is played: the pause between events, pauses at given points, and where it is cut. */
export interface StreamPlan {
  /** Wait before each event after the first. */
  eventDelayMs: number;
  /** Wait `delayMs` once `afterEvents` events are written. */
  pauses: Array<{ afterEvents: number; delayMs: number }>;
  /** After `afterEvents` events: send `event: error` with `error` and end, or, without `error`, destroy the socket. */
  cut?: { afterEvents: number; error?: { type: string; message: string } };
}

function startSse(res: ServerResponse, flush: boolean): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "request-id": randomId("req_"),
  });
  if (flush) res.flushHeaders();
}

/** Resolves once the chunk is handed to the socket, so a cut that follows never loses it. */
function write(res: ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => res.write(chunk, () => resolve()));
}

async function pauseAt(plan: StreamPlan, written: number, signal: AbortSignal): Promise<void> {
  for (const pause of plan.pauses) if (pause.afterEvents === written) await sleep(pause.delayMs, signal);
}

/** Streams `events` per `plan`; stops quietly when `signal` aborts (client gone or server closing). */
export async function sendStream(res: ServerResponse, events: SseEvent[], plan: StreamPlan, signal: AbortSignal): Promise<void> {
  if (res.destroyed || signal.aborted) return;
  if (plan.eventDelayMs <= 0 && plan.pauses.length === 0 && !plan.cut) {
    // Nothing to wait for: head and events go in one write, as a server sends what it has at once,
    // instead of a write (and a wake-up of the client) per event.
    startSse(res, false);
    res.end(events.map(formatSse).join(""));
    return;
  }
  startSse(res, true);
  const cutAt = plan.cut ? Math.min(plan.cut.afterEvents, events.length) : Infinity;
  for (let i = 0; i <= events.length; i++) {
    await pauseAt(plan, i, signal);
    if (signal.aborted || res.destroyed) return;
    if (i === cutAt) return cutStream(res, plan.cut?.error);
    const event = events[i];
    if (!event) break;
    if (i > 0) await sleep(plan.eventDelayMs, signal);
    if (signal.aborted || res.destroyed) return;
    await write(res, formatSse(event));
  }
  res.end();
}

function cutStream(res: ServerResponse, error: { type: string; message: string } | undefined): void {
  if (!error) {
    res.destroy();
    return;
  }
  res.end(formatSse({ event: "error", data: { type: "error", error, request_id: randomId("req_") } }));
}

/** A 200 whose body is not what the client expects: broken JSON, or a broken SSE frame when streaming. */
export function sendMalformed(res: ServerResponse, stream: boolean): void {
  if (res.destroyed || res.headersSent) return;
  if (stream) {
    startSse(res, true);
    res.end("event: message_start\ndata: {\"type\":\"message_start\",\"message\":\n\n");
    return;
  }
  res.writeHead(200, { "content-type": "application/json", "request-id": randomId("req_") });
  res.end("<html>scripted model: malformed body</html>");
}
