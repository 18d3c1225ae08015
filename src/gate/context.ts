// The gate's vocabulary: what a tool declares a call may touch, what the gate concludes, and what it answers.
import type { PermissionModeName as PermissionMode } from "../types.js";
import type { ApprovalLists } from "./approval-entries.js";

export { PERMISSION_MODES, type PermissionModeName as PermissionMode } from "../types.js";

/** A permission mode that can change while a turn runs: the gate reads `mode` at each call. */
export interface ModeHolder {
  mode: PermissionMode;
}

/**
 * What one call may touch, declared by its tool (or a function of the input): `read` only reads (unasked, in plan mode too); `act` changes what the user
 * allowed by giving the tool (unasked, never in plan mode); `ask` needs approval each time; a `command` goes to the judge, a `path` to the path rules.
 */
export type Access = "read" | "act" | "ask" | { command: string } | { path: string; write?: boolean };

/** What a call is, as the approver and the events show it. */
export type Subject = { kind: "command"; command: string } | { kind: "path"; access: "read" | "write"; path: string } | { kind: "tool"; tool: string; input: unknown };

/**
 * The gate's conclusion before the mode applies: `safe` reads only; `act` changes something unasked; `contained` runs in the sandbox's `auto`; `approved`
 * or `denied` by the approvals file; `needs` the user; `never` in any mode. `alwaysSaves`/`denySaves`: the entries "always" adds (absent: for this process).
 */
export interface Verdict {
  kind: "safe" | "act" | "contained" | "approved" | "needs" | "denied" | "never";
  readOnly: boolean;
  subject: Subject;
  reason: string;
  alwaysSaves?: string;
  denySaves?: string;
  path?: string;
}

/** What the gate granted one call: a command judged safe runs read-only, a contained one confined; a file tool uses the real path. */
export interface Grant {
  readOnly: boolean;
  contained?: boolean;
  path?: string;
}

/** The gate's answer: run with this grant, or the refusal the model reads. */
export type Decision = ({ allowed: true } & Grant) | { allowed: false; reason: string };

/** One call as the dispatcher hands it to the gate, its input parsed and its access declared. */
export interface GateCall {
  id: string;
  tool: string;
  input: unknown;
  access: Access;
  /** Why an `ask` call asks, when the tool says (Tool.approvalReason). */
  reason?: string;
}

/** A judged call: `readOnly` at once (it may run beside other reads); `settle` applies the mode as it is then, asks, saves "always", emits `approval`. Never rejects. */
export interface Judged {
  readonly readOnly: boolean;
  settle(): Promise<Decision>;
}

/** The user's answer to a plan: the mode to continue in (`undefined`: stay in plan mode), or, when nobody can answer, the refusal the model reads. */
export type LeavePlanAnswer = { answered: true; mode: Exclude<PermissionMode, "bypassPermissions"> | undefined } | { answered: false; reason: string };

/** The gate as tools and the dispatcher see it. Never throws for a refusal. */
export interface Gate {
  /** The mode now: read at each check, so a change applies from the next tool call. */
  readonly mode: PermissionMode;
  /** Judges one call, once. Never rejects: a failing judge refuses the call. */
  check(call: GateCall): Promise<Judged>;
  /** Shows the approver a plan: "allow once" continues in `default`, "allow always" in `acceptEdits`; never `bypassPermissions`. */
  askLeavePlan(plan: string, toolUseId: string): Promise<LeavePlanAnswer>;
  /** Whether the approvals file denies this tool name (a server tool is then not offered at all). */
  deniesTool(tool: string): boolean;
}

/** The folders a command runs from: relative paths and `cd` from `cwd`, `~` from `home`. */
export interface CommandPlace {
  cwd: string;
  home: string;
}

/** The command judge's conclusion: a verdict kind, why, and the allowed entry "always" saves (absent when too broad to be one). */
export interface CommandVerdict {
  kind: "safe" | "contained" | "approved" | "needs" | "denied" | "never";
  reasons: string[];
  alwaysSaves?: string;
}

/** Judges shell commands for the gate (the shell module provides one): read-only, listed in the approvals file, or never. Never rejects. */
export interface CommandJudge {
  judge(command: string, approvals: ApprovalLists, place: CommandPlace): Promise<CommandVerdict>;
}
