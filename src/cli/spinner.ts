// A quiet spinner on the terminal while waiting for the model's first output of a request.
import type { AgentEvent, EventSink } from "../types.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

/** Wraps a sink: the spinner runs from each request's start until anything is printed. */
export function withSpinner(sink: EventSink, out: { write(text: string): void }): EventSink & { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let frame = 0;
  const stop = (): void => {
    if (!timer) return;
    clearInterval(timer);
    timer = undefined;
    out.write("\r\x1b[K");
  };
  const start = (): void => {
    stop();
    timer = setInterval(() => out.write(`\r\x1b[2m${FRAMES[frame++ % FRAMES.length]} thinking\x1b[0m`), FRAME_MS);
    timer.unref();
  };
  const wrapped = (event: AgentEvent): void => {
    if (event.type === "request_start") {
      // The sink first: it may end the line the last response left open, and the spinner then draws on a fresh one.
      sink(event);
      return start();
    }
    if (event.type !== "usage") stop();
    sink(event);
  };
  return Object.assign(wrapped, { stop });
}
