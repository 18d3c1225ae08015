// One streamed request: events → text_delta events + the final message (a small accumulator for the SDK's MessageStream), broken streams retried.
import type Anthropic from "@anthropic-ai/sdk";
import type { Clock } from "../deps.js";
import { orFallback } from "../errors.js";
import type { ApiMessage, EventSink } from "../types.js";
import { isServerResult, serverResultText } from "../content.js";
import { describeError } from "./client.js";

export type MessageParams = Anthropic.MessageCreateParamsNonStreaming;

/** Retries of a stream that broke after it started (the SDK retries only before the first byte). */
export const MAX_STREAM_RETRIES = 3;
export const STREAM_RETRY_BASE_MS = 500;
/** A started stream that sends nothing but pings this long is treated as broken. */
export const STREAM_IDLE_TIMEOUT_MS = 120_000;

export interface StreamOptions {
  signal: AbortSignal;
  emit: EventSink;
  clock: Clock;
  maxStreamRetries?: number;
  retryBaseMs?: number;
  /** Silence after which a started stream is abandoned and retried; default the client's timeout, at most 120 s. */
  idleTimeoutMs?: number;
}

/** How one request ended: a complete message, an abort by the user, or an error (already retried where it could be). */
export type StreamOutcome = { outcome: "message"; message: ApiMessage } | { outcome: "aborted" } | { outcome: "failed"; error: unknown };

/**
 * Streams one request and resolves to how it ended; never rejects. Deltas are emitted as they arrive. A stream broken after it started (dropped, an SSE
 * `error` event such as overloaded_error, silence) is retried from scratch up to `maxStreamRetries` times, backing off; earlier errors are the SDK's (retried).
 */
export async function streamMessage(client: Anthropic, params: MessageParams, opts: StreamOptions): Promise<StreamOutcome> {
  const maxRetries = opts.maxStreamRetries ?? MAX_STREAM_RETRIES;
  for (let attempt = 0; ; attempt++) {
    const result = await streamOnce(client, params, opts);
    if (opts.signal.aborted) return { outcome: "aborted" };
    if (result.ok) return { outcome: "message", message: result.message };
    if (!result.started || attempt >= maxRetries) return { outcome: "failed", error: result.error };
    const delayMs = (opts.retryBaseMs ?? STREAM_RETRY_BASE_MS) * 2 ** attempt;
    opts.emit({ type: "retry", attempt: attempt + 1, reason: describeError(result.error), delayMs });
    await opts.clock.sleep(delayMs, opts.signal);
    if (opts.signal.aborted) return { outcome: "aborted" };
  }
}

type Attempt = { ok: true; message: ApiMessage } | { ok: false; started: boolean; error: unknown };

async function streamOnce(client: Anthropic, params: MessageParams, opts: StreamOptions): Promise<Attempt> {
  if (opts.signal.aborted) return { ok: false, started: false, error: new Error("aborted") };
  let started = false;
  // The SDK's timeout covers the wait for headers only; a stream that goes quiet after that is cut here.
  const quiet = new AbortController();
  const signal = AbortSignal.any([opts.signal, quiet.signal]);
  const idleMs = opts.idleTimeoutMs ?? Math.min(client.timeout, STREAM_IDLE_TIMEOUT_MS);
  let lastEventAt = 0;
  let idle: NodeJS.Timeout | undefined;
  let stalled = false;
  // One timer per attempt, set again when it fires early: a timer per event (many a second) costs more than the event.
  const watchIdle = (delayMs: number): void => {
    idle = setTimeout(() => {
      const quietMs = performance.now() - lastEventAt;
      if (quietMs < idleMs) return watchIdle(idleMs - quietMs);
      stalled = true;
      quiet.abort();
    }, delayMs);
  };
  const stall = (): Error => new Error(`the response stream sent nothing for ${Math.round(idleMs / 1000)} s`);
  try {
    // The SDK sends the request, retries it and throws its errors until the response starts; its stream reads the events
    // (pings and unnamed events skipped, an SSE `error` event thrown as an APIError), and ends quietly once aborted.
    const stream = await client.messages.create({ ...params, stream: true }, { signal });
    started = true;
    lastEventAt = performance.now();
    watchIdle(idleMs);
    const message = new MessageAccumulator(eventSink(opts.emit));
    for await (const event of stream) {
      lastEventAt = performance.now();
      message.add(event);
    }
    if (stalled) return { ok: false, started: true, error: stall() };
    return { ok: true, message: message.result() };
  } catch (error) {
    // After an abort by the user the caller looks at its signal; the error itself says nothing more.
    return { ok: false, started, error: stalled ? stall() : error };
  } finally {
    clearTimeout(idle);
  }
}

/** Stream progress as events: deltas, and the provider's server tools (`tool_call` once complete, `tool_result` when it arrives). */
function eventSink(emit: EventSink): StreamSink {
  const names = new Map<string, string>();
  return {
    text: (text) => emit({ type: "text_delta", text }),
    thinking: (text) => emit({ type: "thinking_delta", text }),
    block(block) {
      if (block.type === "server_tool_use") {
        names.set(block.id, block.name);
        emit({ type: "tool_call", id: block.id, name: block.name, input: block.input, server: true });
      } else if (isServerResult(block) && "tool_use_id" in block) {
        const { isError, text } = serverResultText(block);
        const name = names.get(block.tool_use_id) ?? block.type.replace(/_tool_result$/, "");
        emit({ type: "tool_result", id: block.tool_use_id, name, isError, content: text, server: true });
      }
    },
  };
}

type Block = ApiMessage["content"][number];

/** What an accumulator reports as the stream goes: text and thinking deltas, and each block once it is complete. */
type StreamSink = { text(text: string): void; thinking(text: string): void; block(block: Block): void };

/** Folds raw SSE events into a message, parsing tool input JSON once when its block stops (the SDK re-parses it on every delta). */
class MessageAccumulator {
  private message: ApiMessage | undefined;
  private readonly json = new Map<number, string>();
  private stopped = false;

  constructor(private readonly sink: StreamSink) {}

  add(event: Anthropic.RawMessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.message = { ...event.message, content: [] };
        return;
      case "content_block_start":
        this.current().content[event.index] = { ...event.content_block } as Block;
        if (event.content_block.type === "tool_use" || event.content_block.type === "server_tool_use") this.json.set(event.index, "");
        return;
      case "content_block_delta":
        return this.delta(event.index, event.delta);
      case "content_block_stop":
        return this.finishBlock(event.index);
      case "message_delta": {
        const message = this.current();
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        for (const [key, value] of Object.entries(event.usage)) if (value !== null && value !== undefined) (message.usage as unknown as Record<string, unknown>)[key] = value;
        return;
      }
      case "message_stop":
        this.stopped = true;
        return;
    }
  }

  /** The complete message; throws when the stream ended before `message_stop`. */
  result(): ApiMessage {
    if (!this.message || !this.stopped) throw new Error("the response stream ended before the message was complete");
    return this.message;
  }

  private current(): ApiMessage {
    if (!this.message) throw new Error("the response stream sent a block before message_start");
    return this.message;
  }

  private delta(index: number, delta: Anthropic.RawContentBlockDelta): void {
    const block = this.current().content[index] as Record<string, unknown> | undefined;
    if (!block) throw new Error(`the response stream sent a delta for unknown block ${index}`);
    if (delta.type === "text_delta") {
      block["text"] = `${(block["text"] as string | undefined) ?? ""}${delta.text}`;
      if (delta.text) this.sink.text(delta.text);
    } else if (delta.type === "input_json_delta") {
      this.json.set(index, (this.json.get(index) ?? "") + delta.partial_json);
    } else if (delta.type === "thinking_delta") {
      block["thinking"] = `${(block["thinking"] as string | undefined) ?? ""}${delta.thinking}`;
      if (delta.thinking) this.sink.thinking(delta.thinking);
    } else if (delta.type === "signature_delta") {
      block["signature"] = delta.signature;
    } else if (delta.type === "citations_delta") {
      block["citations"] = [...((block["citations"] as unknown[] | null | undefined) ?? []), delta.citation];
    }
  }

  private finishBlock(index: number): void {
    const block = this.current().content[index];
    if (!block) throw new Error(`the response stream ended unknown block ${index}`);
    const raw = this.json.get(index);
    if (raw !== undefined) {
      const input: unknown = orFallback(() => (raw.trim() ? JSON.parse(raw) : {}), undefined);
      if (input === undefined) throw new Error(`the response stream sent tool input that is not valid JSON (${raw.length} characters)`);
      (block as { input: unknown }).input = input;
    }
    this.sink.block(block);
  }
}
