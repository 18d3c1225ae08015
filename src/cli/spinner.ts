// A quiet spinner on the terminal while waiting for the model's first output of a request.
import type { EventSink } from "../types.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

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
