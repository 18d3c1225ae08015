// The model at work on the terminal: a spinner until a request's first output, and its thinking as one dim "thinking…" line that becomes "thought for 3.2 s", or streamed dim.
import type { EventSink } from "../types.js";
import { visibleText } from "./visible-text.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

/**
 * One response's thinking at a time: `push` a delta (the caller has ended its line), `finish` when something else starts, `active` while a run's
 * line is open. Hidden, a run is one "thinking…" line, then "thought for N s"; with `show`, dim escaped text. `now`: milliseconds.
 */
export function createThinkingLine(write: (text: string) => void, opts: { show: boolean; dim: (text: string) => string; now: () => number }) {
  let since: number | undefined;
  let midLine = false;
  return {
    push(text: string): void {
      if (since === undefined) {
        since = opts.now();
        if (!opts.show) write(opts.dim("thinking…"));
      }
      if (!opts.show || text === "") return;
      write(visibleText(text, { plain: opts.dim, mark: opts.dim, keepLineBreaks: true }));
      midLine = !text.endsWith("\n");
    },
    finish(): void {
      if (since === undefined) return;
      const seconds = Math.max(0, opts.now() - since) / 1000;
      const took = seconds < 10 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`;
      write(opts.show ? `${midLine ? "\n" : ""}${opts.dim(`(thought for ${took})`)}\n` : `\r\x1b[K${opts.dim(`thought for ${took}`)}\n`);
      since = undefined;
      midLine = false;
    },
    active: (): boolean => since !== undefined,
  };
}

/** Wraps a sink: the spinner runs from each request's start until anything is printed; `stop` erases it. */
export function withSpinner(sink: EventSink, out: { write(text: string): void }): EventSink & { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let frame = 0;
  const stop = (): void => {
    if (!timer) return;
    clearInterval(timer);
    timer = undefined;
    out.write("\r\x1b[K");
  };
  const wrapped: EventSink = (event) => {
    if (event.type !== "usage") stop();
    // The sink first: it may end the line the last response left open, and the spinner then draws on a fresh one.
    sink(event);
    if (event.type !== "request_start") return;
    timer = setInterval(() => out.write(`\r\x1b[2m${FRAMES[frame++ % FRAMES.length]} thinking\x1b[0m`), FRAME_MS);
    timer.unref();
  };
  return Object.assign(wrapped, { stop });
}
