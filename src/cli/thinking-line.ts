// The model's thinking on the terminal: one dim "thinking…" line that becomes "thought for 3.2 s", or, shown, the thinking text streamed dim.
import { visibleText, type VisibleStyle } from "./visible-text.js";

export interface ThinkingLineOptions {
  /** Stream the thinking text itself (the REPL's `/thinking show`) instead of one line saying it goes on. */
  show: boolean;
  /** Dims a piece of text (identity without colors). */
  dim: (text: string) => string;
  /** Milliseconds, for how long the model thought. */
  now: () => number;
}

/** The thinking of one response at a time, as the renderer drives it. */
export interface ThinkingLine {
  /** A thinking delta arrived; the first of a run starts the line (the caller has ended its own line first). */
  push(text: string): void;
  /** Something else starts (text, a tool call, the turn's end): finishes the run, if any, on its own line. */
  finish(): void;
  /** Whether a run is on the screen, its line not ended. */
  active(): boolean;
}

/**
 * Thinking shown without getting in the way of the reply. Hidden (the default), a run of
 * deltas prints "thinking…" once, then, when it ends, the line is rewritten in place (carriage
 * return, erase line) as "thought for N s", so a turn that thought five times keeps five short
 * lines and none of the text. Shown, the text streams dim, escaped as all model text is.
 */
export function createThinkingLine(write: (text: string) => void, opts: ThinkingLineOptions): ThinkingLine {
  let since: number | undefined;
  let midLine = false;
  const style: VisibleStyle = { plain: opts.dim, mark: opts.dim };
  return {
    push(text) {
      if (since === undefined) {
        since = opts.now();
        if (!opts.show) write(opts.dim("thinking…"));
      }
      if (!opts.show || text === "") return;
      write(visibleText(text, { ...style, keepLineBreaks: true }));
      midLine = !text.endsWith("\n");
    },
    finish() {
      if (since === undefined) return;
      const took = describeSeconds(opts.now() - since);
      if (opts.show) write(`${midLine ? "\n" : ""}${opts.dim(`(thought for ${took})`)}\n`);
      else write(`\r\x1b[K${opts.dim(`thought for ${took}`)}\n`);
      since = undefined;
      midLine = false;
    },
    active: () => since !== undefined,
  };
}

/** `0.4 s`, `3.2 s` under ten seconds; whole seconds above. */
function describeSeconds(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  return seconds < 10 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`;
}
