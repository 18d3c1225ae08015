// One streamed request: SDK stream → text_delta events + the final message, with a bounded retry of broken streams.
import Anthropic from "@anthropic-ai/sdk";
import type { Clock } from "../deps.js";
import type { ApiMessage, EventSink } from "../types.js";
import { MessageAccumulator } from "./accumulate.js";

export type MessageParams = Anthropic.MessageCreateParamsNonStreaming;

/** Retries of a stream that broke after it started (the SDK retries only before the first byte). */
export const MAX_STREAM_RETRIES = 3;
export const STREAM_RETRY_BASE_MS = 500;

export interface StreamOptions {
  signal: AbortSignal;
  emit: EventSink;
  clock: Clock;
  maxStreamRetries?: number;
  retryBaseMs?: number;
}

/** Thrown when the user aborted; the loop turns it into stop reason `aborted`. */
export class AbortedError extends Error {
  constructor() {
    super("aborted by the user");
    this.name = "AbortedError";
  }
}

/**
 * Streams one request and resolves to the complete message. Text deltas are emitted
 * as they arrive. A stream that broke after the response started (connection dropped,
 * SSE `error` event such as overloaded_error) is retried from scratch, discarding the
 * partial message, up to `maxStreamRetries` times with exponential backoff. Errors
 * before the stream started are the SDK's (already retried) and are rethrown as they are.
 */
export async function streamMessage(client: Anthropic, params: MessageParams, opts: StreamOptions): Promise<ApiMessage> {
  const maxRetries = opts.maxStreamRetries ?? MAX_STREAM_RETRIES;
  for (let attempt = 0; ; attempt++) {
    const outcome = await streamOnce(client, params, opts);
    if (outcome.ok) return outcome.message;
    if (opts.signal.aborted) throw new AbortedError();
    if (!outcome.started || attempt >= maxRetries) throw outcome.error;
    const delayMs = (opts.retryBaseMs ?? STREAM_RETRY_BASE_MS) * 2 ** attempt;
    opts.emit({ type: "retry", attempt: attempt + 1, reason: describeError(outcome.error), delayMs });
    await opts.clock.sleep(delayMs, opts.signal);
    if (opts.signal.aborted) throw new AbortedError();
  }
}

type Outcome = { ok: true; message: ApiMessage } | { ok: false; started: boolean; error: unknown };

async function streamOnce(client: Anthropic, params: MessageParams, opts: StreamOptions): Promise<Outcome> {
  let started = false;
  try {
    const stream = await client.messages.create({ ...params, stream: true }, { signal: opts.signal });
    started = true;
    const message = new MessageAccumulator((text) => opts.emit({ type: "text_delta", text }));
    for await (const event of stream) message.add(event);
    if (opts.signal.aborted) throw new AbortedError();
    return { ok: true, message: message.result() };
  } catch (error) {
    if (opts.signal.aborted || error instanceof Anthropic.APIUserAbortError || error instanceof AbortedError) throw new AbortedError();
    return { ok: false, started, error };
  }
}

/** One line describing an API or network error, fit for a log or the CLI. */
export function describeError(error: unknown): string {
  if (error instanceof Anthropic.APIError) {
    const body = error.error as { error?: { type?: string; message?: string } } | undefined;
    const type = body?.error?.type ?? error.type;
    const message = body?.error?.message ?? error.message;
    const status = error.status !== undefined ? `${error.status} ` : "";
    return `API error ${status}${type ? `(${type}) ` : ""}${oneLine(message)}`.trim();
  }
  if (error instanceof Error) return oneLine(error.message);
  return oneLine(String(error));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 500);
}
