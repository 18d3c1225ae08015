// Sessions as a table for people (`miniclaw sessions`, the REPL's /sessions and --resume), and how long ago something happened.
import { nestUnderParents, type SessionListing } from "../sessions/session-listing.js";
import { formatMinute } from "./render.js";
import { columns, visibleLine } from "./visible-text.js";

/** What a subagent's session key is indented with, under its parent's. */
export const SUBAGENT_MARK = "  └ ";

const HEADER = ["KEY", "AGENT", "MESSAGES", "TOKENS", "LAST ACTIVITY"];

/** Table rows, padded (keys and agents escaped), subagents under parents. `current` is marked `←`, first as new when it has no session yet (/new); `numbered` puts `1.`, `2.`... in front. */
export function sessionTable(sessions: readonly SessionListing[], options: { current?: string; numbered?: boolean } = {}): string[] {
  const { current, numbered = false } = options;
  const rows = nestUnderParents(sessions).map((s) => [
    `${s.depth === 1 ? SUBAGENT_MARK : ""}${visibleLine(s.key, 200)}`,
    visibleLine(s.agentId, 40),
    String(s.messages),
    `~${s.estimatedTokens}`,
    `${formatMinute(s.lastActivity)}${s.key === current ? " ←" : ""}`,
  ]);
  if (current !== undefined && !sessions.some((s) => s.key === current)) rows.unshift([visibleLine(current, 200), "", "0", "", "(new) ←"]);
  const table = [HEADER, ...rows].map((row, i) => (numbered ? [i === 0 ? "" : `${i}.`, ...row] : row));
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => columns(row[column]!))));
  return table.map((row) => row.map((cell, column) => cell + " ".repeat(widths[column]! - columns(cell))).join("  ").trimEnd());
}

/** `just now`, `5 minutes ago`, `2 hours ago`, `3 days ago`: how long before `now` the time `then` was. */
export function describeAge(then: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - then) / 60_000);
  if (minutes < 1) return "just now";
  const [count, unit] = minutes < 60 ? [minutes, "minute"] : minutes < 48 * 60 ? [Math.floor(minutes / 60), "hour"] : [Math.floor(minutes / 1440), "day"];
  return `${counted(count, unit)} ago`;
}

/** `1 message`, `2 messages`: a count and its noun, singular for one. */
export function counted(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}
