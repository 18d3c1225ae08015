// A turn as an async iterable: its events, then its result, for `for await` loops.
import type { AgentConfig, AgentEvent, TurnResult } from "../types.js";
import { runAgentTurn } from "./run-turn.js";
import type { TurnOptions } from "./turn-options.js";

/** What `streamAgentTurn` yields: every event of the turn, in order, then the result. */
export type TurnMessage<T = unknown> = AgentEvent | { type: "result"; result: TurnResult<T> };

/**
 * `runAgentTurn` as an async iterable: `for await (const m of streamAgentTurn(key, text, agent))`
 * yields each event as `onEvent` would receive it (an `onEvent` given is still called), then
 * `{ type: "result", result }`, then ends. Leaving the loop early interrupts the turn, which ends
 * as `aborted` with its session left valid. What `runAgentTurn` throws is thrown by the iteration.
 */
export function streamAgentTurn<T = unknown>(sessionKey: string, userText: string, agent: AgentConfig, options: TurnOptions<T> = {}): AsyncIterable<TurnMessage<T>> {
  return {
    [Symbol.asyncIterator]() {
      const queue: Array<TurnMessage<T>> = [];
      let wake: (() => void) | undefined;
      let finished = false;
      let failure: { error: unknown } | undefined;
      const stop = new AbortController();
      const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
      const push = (message: TurnMessage<T>): void => {
        queue.push(message);
        wake?.();
      };
      const onEvent = (event: AgentEvent): void => {
        options.onEvent?.(event);
        push(event);
      };
      const done = runAgentTurn(sessionKey, userText, agent, { ...options, signal, onEvent }).then(
        (result) => push({ type: "result", result }),
        (error: unknown) => (failure = { error }),
      ).finally(() => {
        finished = true;
        wake?.();
      });
      return {
        async next(): Promise<IteratorResult<TurnMessage<T>>> {
          while (queue.length === 0 && !finished) await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          const message = queue.shift();
          if (message) return { value: message, done: false };
          if (failure) throw failure.error;
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<TurnMessage<T>>> {
          stop.abort();
          await done;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
