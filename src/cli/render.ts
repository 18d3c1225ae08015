// Turns loop events into terminal lines: tool calls on one line each, results summarised, colors when allowed.
import { styleText } from "node:util";
import type { AgentEvent, EventSink } from "../types.js";

type Style = Parameters<typeof styleText>[0];

export interface RenderTarget {
  write(text: string): void;
}

export interface RenderOptions {
  /** Colors on: a terminal and no NO_COLOR. */
  color: boolean;
  /** Write text deltas as they arrive (the REPL); `run` prints the final text itself. */
  streamText: boolean;
}

/** Whether to color output written to a stream: a TTY and NO_COLOR unset. */
export function useColor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  return stream.isTTY === true && !env["NO_COLOR"] && env["TERM"] !== "dumb";
}

/** An event sink that renders to `out`. Text deltas (when streamed) go raw; everything else is a line. */
export function createRenderer(out: RenderTarget, opts: RenderOptions): EventSink & { atLineStart(): boolean } {
  const paint = (style: Style, text: string): string => (opts.color ? styleText(style, text) : text);
  let midLine = false;
  const line = (text: string): void => {
    out.write((midLine ? "\n" : "") + text + "\n");
    midLine = false;
  };
  const sink = (event: AgentEvent): void => {
    const text = describeEvent(event, paint);
    if (event.type === "text_delta") {
      if (!opts.streamText) return;
      out.write(event.text);
      midLine = !event.text.endsWith("\n");
      return;
    }
    if (text !== undefined) line(text);
  };
  return Object.assign(sink, { atLineStart: () => !midLine });
}

/** One line for an event, or undefined for events not worth a line. */
export function describeEvent(event: AgentEvent, paint: (style: Style, text: string) => string): string | undefined {
  switch (event.type) {
    case "tool_call":
      return paint("cyan", `→ ${event.name}: ${summarizeInput(event.input)}`);
    case "tool_result":
      return event.isError
        ? paint("red", `  ✗ ${firstLine(event.content)}`)
        : paint("dim", `  ✓ ${summarizeOutput(event.content)}`);
    case "approval":
      if (event.decision === "safe") return undefined;
      return paint("yellow", `  approval: ${event.decision.replace("_", " ")} — ${event.command}${event.reason ? ` (${event.reason})` : ""}`);
    case "warning":
      return paint("yellow", `warning: ${event.message}`);
    case "retry":
      return paint("yellow", `retrying (${event.attempt}): ${event.reason}`);
    case "compaction":
      return paint("magenta", `[compacted ${event.replacedMessages} messages into a ${event.summaryTokens}-token summary: ${event.reason}]`);
    case "turn_end":
      return event.stopReason === "error" ? paint("red", `error: ${event.error ?? "the turn failed"}`) : undefined;
    default:
      return undefined;
  }
}

/** The one-line view of a tool input: the command, the path, or compact JSON. */
export function summarizeInput(input: unknown): string {
  if (input && typeof input === "object") {
    const record = input as Record<string, unknown>;
    for (const key of ["command", "path", "name", "query", "key"]) {
      if (typeof record[key] === "string") return clip(record[key] as string);
    }
  }
  return clip(JSON.stringify(input) ?? "");
}

function summarizeOutput(content: string): string {
  const lines = content.split("\n").filter((l) => l.trim()).length;
  return lines <= 1 ? clip(content.trim() || "(no output)") : `${lines} lines`;
}

function firstLine(text: string): string {
  return clip(text.split("\n").find((l) => l.trim()) ?? text);
}

/** `2026-11-29 15:40` (UTC): how the terminal shows a moment. */
export function formatMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

/** One line of at most `max` characters, whitespace collapsed, cut with an ellipsis. */
export function clip(text: string, max = 100): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
