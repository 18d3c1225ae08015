// A turn as an async iterable: its events, then its result, for `for await` loops.
import { Readable } from "node:stream";
import type { AgentConfig, AgentEvent, TurnResult } from "../types.js";
import { runAgentTurn } from "./run-turn.js";
import type { TurnOptions } from "./turn-options.js";

/** What `streamAgentTurn` yields: every event of the turn, in order, then the result. */
export type TurnMessage<T = unknown> = AgentEvent | { type: "result"; result: TurnResult<T> };

/**
 * `runAgentTurn` as an async iterable: each event (an `onEvent` given is still called), then `{ type: "result", result }`. Leaving early interrupts the
 * turn (`aborted`, its session valid); what `runAgentTurn` throws is thrown after the events before it.
 */
export async function* streamAgentTurn<T = unknown>(sessionKey: string, userText: string, agent: AgentConfig, options: TurnOptions<T> = {}): AsyncIterable<TurnMessage<T>> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // The events wait here until read; the stream ends when the turn does.
  const events = new Readable({ objectMode: true, read() {} });
  const onEvent = (event: AgentEvent): void => {
    options.onEvent?.(event);
    events.push(event);
  };
  const done = runAgentTurn(sessionKey, userText, agent, { ...options, signal, onEvent }).finally(() => events.push(null));
  done.catch(() => {}); // Rethrown below, once the events before it are yielded.
  try {
    yield* events as AsyncIterable<AgentEvent>;
    yield { type: "result", result: await done };
  } finally {
    stop.abort();
    await done.catch(() => {});
  }
}
