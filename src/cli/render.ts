// Turns loop events into terminal lines: tool calls on one line each, results summarised, colors when allowed; the model at work: a spinner until a
// request's first output, and its thinking as one dim "thinking…" line that becomes "thought for 3.2 s", or streamed dim.
import { styleText } from "node:util";
import type { AgentEvent, EventSink } from "../types.js";
import type { MarkdownStream } from "./markdown-stream.js";
import { createSubagentLines, firstLine } from "./subagent-lines.js";
import { visibleLine, visibleText, type VisibleStyle } from "./visible-text.js";

type Style = Parameters<typeof styleText>[0];

const CLIP_COLUMNS = 100;

/** How events are drawn. */
export interface RenderOptions {
  /** Colors on: a terminal and no NO_COLOR. */
  color: boolean;
  /** Write text deltas (and thinking) as they arrive (the REPL); `run` prints the final text itself. */
  streamText: boolean;
  /** Makes the Markdown stream for streamed text: given, not imported, so `run` never loads the Markdown renderer. */
  markdown?: (write: (text: string) => void) => MarkdownStream;
  /** The API's base URL, named in a connection error (the SDK's error does not say where it tried). */
  server?: string;
  /** Stream the thinking text dim instead of one "thinking…" line (the REPL's `/thinking show`). */
  showThinking?: boolean;
  /** Milliseconds, for how long the model thought; default `Date.now`. */
  now?: () => number;
}

/** Whether to color output written to a stream: a TTY, NO_COLOR unset and TERM not dumb. */
export function useColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return stream.isTTY === true && !env["NO_COLOR"] && env["TERM"] !== "dumb";
}

/** A sink drawing events on `out`, model text escaped one delta at a time; a subagent's events (`parentToolUseId`) indented under its delegate line. `atLineStart()`: the next line starts clean. */
export function createRenderer(out: { write(text: string): void }, opts: RenderOptions): EventSink & { atLineStart(): boolean } {
  const paint = (style: Style, text: string): string => (opts.color ? styleText(style, text) : text);
  const mark = (text: string): string => paint("dim", text);
  const markdown = opts.markdown?.((text) => out.write(text));
  // Thinking is shown only where the reply streams: `run` and line mode print the final text alone.
  const thinking = opts.streamText ? createThinkingLine((text) => out.write(text), { show: opts.showThinking === true, dim: mark, now: opts.now ?? Date.now }) : undefined;
  let midLine = false;
  const endLine = (): void => {
    markdown?.end();
    if (midLine) out.write("\n");
    midLine = false;
  };
  const line = (text: string): void => {
    endLine();
    out.write(text + "\n");
  };
  const subagents = createSubagentLines(paint);
  // exit_plan_mode's approval quotes the whole plan, which its call line and the question showed already.
  const planCalls = new Set<string>();
  const sink = (event: AgentEvent): void => {
    if (event.parentToolUseId !== undefined) {
      const prefix = subagents.childPrefix({ ...event, parentToolUseId: event.parentToolUseId });
      const text = prefix === undefined ? undefined : describeEvent(event, paint);
      if (text !== undefined) line(text.split("\n").map((row) => prefix + row).join("\n"));
      return;
    }
    const delegation = subagents.describe(event);
    if (delegation !== null) {
      thinking?.finish();
      if (delegation !== undefined) line(delegation);
      return;
    }
    if (event.type === "thinking_delta") {
      if (thinking && !thinking.active()) endLine();
      return thinking?.push(event.text);
    }
    if (event.type !== "usage") thinking?.finish();
    // Each response's text starts on a line of its own (a follow-up after a steering message has no tool line before it).
    if (event.type === "request_start") return endLine();
    if (event.type === "tool_call" && event.name === "exit_plan_mode") planCalls.add(event.id);
    const shown =
      event.type === "approval" && planCalls.has(event.id) ? { ...event, command: "the plan" }
      : event.type === "turn_end" && event.error !== undefined ? { ...event, error: namingServer(event.error, opts.server) }
      : event;
    const text = describeEvent(shown, paint);
    if (event.type === "text_delta") {
      if (!opts.streamText) return;
      if (markdown) return markdown.push(event.text);
      out.write(visibleText(event.text, { keepLineBreaks: true, mark }));
      midLine = !event.text.endsWith("\n");
      return;
    }
    if (event.type === "turn_end") markdown?.end();
    if (text !== undefined) line(text);
  };
  return Object.assign(sink, { atLineStart: () => !midLine && !thinking?.active() && (markdown?.idle() ?? true) });
}

/** A connection error names the URL it tried (the SDK's own message does not); other errors are returned as they are. */
export function namingServer(error: string, server: string | undefined): string {
  if (!server || !error.startsWith("Connection error")) return error;
  return error.replace(/^Connection error/, `Connection error (${server}/v1/messages)`);
}

/** One line for an event, or undefined. Model text is escaped here, inside our colors: `paint(style, text)` colors a whole line, `paint("dim", escape)` marks each escaped character. */
export function describeEvent(event: AgentEvent, paint: (style: Style, text: string) => string): string | undefined {
  const within = (style: Style): VisibleStyle => ({ mark: (t) => paint("dim", t), plain: (t) => paint(style, t) });
  switch (event.type) {
    case "tool_call":
      return paint("cyan", `→ ${visibleLine(event.name, 80)}: `) + summarizeInput(event.input, event.server === true, within("cyan"));
    case "tool_result":
      if (event.isError) return paint("red", "  ✗ ") + visibleLine(firstLine(event.content), CLIP_COLUMNS, within("red"));
      // A server tool's result starts with its own summary ("8 results", "fetched <title>").
      return paint("dim", "  ✓ ") + (event.server ? visibleLine(firstLine(event.content), CLIP_COLUMNS, within("dim")) : summarizeOutput(event.content, within("dim")));
    case "tool_progress": {
      const done = event.total === undefined ? `${event.progress}` : `${event.progress}/${event.total}`;
      return paint("dim", `  … ${done}${event.message ? " " : ""}`) + visibleLine(event.message ?? "", CLIP_COLUMNS, within("dim"));
    }
    case "approval":
      if (event.decision === "safe") return undefined;
      return paint("yellow", `  approval: ${event.decision.replace("_", " ")} — `) + visibleText(`${event.command}${event.reason ? ` (${event.reason})` : ""}`, within("yellow"));
    case "warning":
      return paint("yellow", "warning: ") + visibleText(event.message, { ...within("yellow"), keepLineBreaks: true });
    case "fallback":
      return paint("yellow", "fallback: ") + visibleText(`${event.from} stayed unavailable (${event.reason}); going on with ${event.to}`, within("yellow"));
    case "retry":
      return paint("dim", `retrying (${event.attempt}): `) + visibleText(event.reason, within("dim"));
    case "compaction":
      return paint("magenta", `[compacted ${event.replacedMessages} message${event.replacedMessages === 1 ? "" : "s"} into a ${event.summaryTokens}-token summary: `) + visibleText(`${event.reason}]`, within("magenta"));
    case "steer":
      return paint("dim", "(steer) ") + visibleLine(event.text, CLIP_COLUMNS, within("dim"));
    case "mode":
      // A change the user made was confirmed when they made it; one the model asked for is news.
      return event.by === "user" ? undefined : paint("magenta", `mode: ${event.previous} → ${event.mode} (plan accepted)`);
    case "turn_end":
      return event.stopReason === "error" ? paint("red", "error: ") + visibleText(event.error ?? "the turn failed", { ...within("red"), keepLineBreaks: true }) : undefined;
    default:
      return undefined;
  }
}

/** The one-line view of a tool input, escaped: the command, the path, ... or compact JSON; a server tool's query in quotes, or its URL. */
function summarizeInput(input: unknown, server: boolean, style: VisibleStyle): string {
  const record = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const plain = style.plain ?? String;
  if (server && typeof record["query"] === "string") return plain('"') + visibleLine(record["query"], CLIP_COLUMNS - 2, style) + plain('"');
  const key = [...(server ? ["url"] : []), "command", "path", "name", "query", "key", "plan"].find((k) => typeof record[k] === "string");
  return visibleLine(key === undefined ? (JSON.stringify(input) ?? "") : (record[key] as string), CLIP_COLUMNS, style);
}

/** A result of one line as itself, of more as its count of lines. */
function summarizeOutput(content: string, style: VisibleStyle): string {
  const lines = content.split("\n").filter((l) => l.trim()).length;
  return lines <= 1 ? visibleLine(content.trim() || "(no output)", CLIP_COLUMNS, style) : (style.plain ?? String)(`${lines} lines`);
}

/** `2026-11-29 15:40` (UTC): how the terminal shows a moment. */
export function formatMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

/**
 * One response's thinking at a time: `push` a delta (the caller has ended its line), `finish` when something else starts, `active` while a run's
 * line is open. Hidden, a run is one "thinking…" line, then "thought for N s"; with `show`, dim escaped text. `now`: milliseconds.
 */
function createThinkingLine(write: (text: string) => void, opts: { show: boolean; dim: (text: string) => string; now: () => number }) {
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
