// Side effects the core takes as parameters: the clock, process spawning, the approver, and the event sink.
import { spawn as nodeSpawn } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import type { AgentEvent, ApprovalDecision } from "./types.js";

/** Wall clock, injectable so tests can drive time. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock; `sleep` resolves early, never rejects, on an abort. */
export const systemClock: Clock = {
  now: () => Date.now(),
  // An abort rejects the timer's promise (and clears the timer): caught, it resolves early.
  sleep: (ms, signal) => delay(ms, undefined, { signal }).catch(() => undefined),
};

/** Process spawning, as `node:child_process.spawn`. */
export type Spawn = typeof nodeSpawn;
export const nodeSpawnDefault: Spawn = nodeSpawn;

/** What the approver is asked about a call the gate could not clear: `tool` (`run_command`, a file tool, the tool called) and `command`, the call in one line. */
export interface ApprovalRequest {
  tool: string;
  command: string;
  /** Why it needs approval, in a few words. */
  reason: string;
  /** The exact entry "always" adds to the approvals file; absent when it saves nothing and lasts until the process exits (file actions, broad commands). */
  alwaysSaves?: string;
  /** For a tool that is neither a command nor a file tool: its parsed input (`command` shows it). */
  input?: unknown;
  /** Set when a subagent asks: its agent id, so the question can name it. */
  agent?: string;
}

/** Decides on one approval request. Must not throw; a non-interactive approver answers `unavailable` at once. The caller saves "always". */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** The approver of `run` and `cron`: nobody can answer, so it refuses. */
export const refuseApprover: Approver = async () => "unavailable";

/** A caller's sink (of events, of warnings) made safe to call: a throw is contained, so a broken listener never breaks a turn; a missing sink drops all. */
export function safeSink<T = AgentEvent>(sink: ((value: T) => void) | undefined): (value: T) => void {
  if (!sink) return () => {};
  return (value) => {
    try {
      sink(value);
    } catch {
      // Contained on purpose: see above.
    }
  };
}
