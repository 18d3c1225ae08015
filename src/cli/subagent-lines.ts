// Subagents on the terminal: a delegate call as one line, the child's activity indented under it, its end with requests and cost.
import type { AgentEvent } from "../types.js";
import { visibleLine, type VisibleStyle } from "./visible-text.js";

/** Columns a child's lines are pushed right: its tool lines sit under the delegate line, inside the parent's own results. */
const CHILD_INDENT = "    ";
const TASK_COLUMNS = 80;

const DELEGATE_TOOL = "delegate";

/**
 * The delegate calls of one turn, in event order: a call prints nothing until its subagent starts (`→ delegate researcher: <task>`), or, refused before,
 * with its error. `describe`: the line of a delegate call or result or a subagent's start or end (undefined: none), `null` for other events.
 * `childPrefix`: a child event's line prefix (indent; label when several run), counting requests; undefined for streamed text.
 */
export function createSubagentLines(paint: (style: "cyan" | "dim" | "red", text: string) => string) {
  const within = (style: "cyan" | "dim" | "red"): VisibleStyle => ({ mark: (t) => paint("dim", t), plain: (t) => paint(style, t) });
  const calls = new Map<string, unknown>();
  const labels = new Map<string, string>();
  const active = new Set<string>();
  const started = new Map<string, number>();
  const requests = new Map<string, number>();
  const labelOf = (toolUseId: string, agentId: string): string => labels.get(toolUseId) ?? agentId;
  return {
    describe(event: AgentEvent): string | undefined | null {
      if (event.type === "tool_call" && event.name === DELEGATE_TOOL && !event.server) {
        calls.set(event.id, event.input);
        return undefined;
      }
      if (event.type === "subagent_start") {
        const count = (started.get(event.agentId) ?? 0) + 1;
        started.set(event.agentId, count);
        labels.set(event.toolUseId, count > 1 ? `${event.agentId}#${count}` : event.agentId);
        active.add(event.toolUseId);
        const head = `→ ${DELEGATE_TOOL} ${visibleLine(labelOf(event.toolUseId, event.agentId), 60)}: `;
        return paint("cyan", head) + visibleLine(firstLine(event.task), TASK_COLUMNS, within("cyan"));
      }
      if (event.type === "subagent_end") {
        active.delete(event.toolUseId);
        return describeEnd(event, labelOf(event.toolUseId, event.agentId), requests.get(event.toolUseId) ?? 0);
      }
      if (event.type === "tool_result" && event.name === DELEGATE_TOOL && !event.server) return describeResult(event);
      return null;
    },
    childPrefix(event: AgentEvent & { parentToolUseId: string }): string | undefined {
      if (event.type === "request_start") requests.set(event.parentToolUseId, (requests.get(event.parentToolUseId) ?? 0) + 1);
      if (event.type === "text_delta" || event.type === "thinking_delta") return undefined;
      const label = labels.get(event.parentToolUseId);
      return active.size > 1 && label ? CHILD_INDENT + paint("dim", `${visibleLine(label, 40)} · `) : CHILD_INDENT;
    },
  };

  /** A child that ran said its end already; a call refused before it shows the call and why. */
  function describeResult(event: Extract<AgentEvent, { type: "tool_result" }>): string | undefined {
    const ran = labels.has(event.id);
    const input = calls.get(event.id);
    calls.delete(event.id);
    if (ran) return undefined;
    const call = paint("cyan", `→ ${DELEGATE_TOOL}: `) + visibleLine(JSON.stringify(input) ?? "", TASK_COLUMNS, within("cyan"));
    const mark = event.isError ? paint("red", "  ✗ ") : paint("dim", "  ✓ ");
    return `${call}\n${mark}${visibleLine(firstLine(event.content), TASK_COLUMNS, within(event.isError ? "red" : "dim"))}`;
  }

  /** `  ✓ researcher done (2 requests, $0.0123)`, or `  ✗ researcher stopped: max_iterations (…)`. */
  function describeEnd(event: Extract<AgentEvent, { type: "subagent_end" }>, label: string, count: number): string {
    const spent = `(${count} request${count === 1 ? "" : "s"}, $${event.costUsd.toFixed(4)})`;
    const name = visibleLine(label, 60);
    if (event.stopReason === "end_turn" || event.stopReason === "stop_sequence") return paint("dim", `  ✓ ${name} done ${spent}`);
    const failed = event.stopReason !== "max_tokens" && event.stopReason !== "refusal";
    return paint(failed ? "red" : "dim", `  ${failed ? "✗" : "✓"} ${name} stopped: ${event.stopReason} ${spent}`);
  }
}

/** The first line of `text` that is not blank (`text` itself when none is). */
export function firstLine(text: string): string {
  return text.split("\n").find((line) => line.trim()) ?? text;
}
