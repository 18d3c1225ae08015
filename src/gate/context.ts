// The gate's vocabulary: what a tool declares a call may touch, what the gate concludes, and what it answers.
import type { ApprovalLists } from "./approval-entries.js";

/**
 * `default` asks for what is not provably safe; `acceptEdits` writes and edits files inside the
 * working folder and workspace unasked, commands staying gated; `plan` runs only what is
 * read-only; `dontAsk` refuses what `default` would ask about (as `run` and cron do);
 * `bypassPermissions` runs all but the denied, and only the user can enter it. Denied entries
 * are refused in every mode.
 * `default` already writes and edits inside the roots unasked, so for the built-in file tools
 * `acceptEdits` differs only in name: what both still ask about inside the roots is protected
 * (`.git/`, the approvals file, configuration a later run obeys, secrets), and a mode for edits
 * must not let the model rewrite what decides what runs unasked.
 */
export type PermissionMode = "default" | "acceptEdits" | "plan" | "dontAsk" | "bypassPermissions";

/** Every mode, in order of how much runs unasked. */
export const PERMISSION_MODES: readonly PermissionMode[] = ["plan", "dontAsk", "default", "acceptEdits", "bypassPermissions"];

/** A permission mode that can change while a turn runs: the gate reads `mode` at each call. */
export interface ModeHolder {
  mode: PermissionMode;
}

/**
 * What one call of a tool may touch, declared by the tool (once, as a value or a function of the
 * parsed input): `read` only reads (runs unasked, alongside other reads, in plan mode too); `act`
 * changes something the user allowed by giving the tool (unasked, never in plan mode); `ask` needs
 * the user's approval each time (or its name in the allowed list); a `command` is judged by the
 * command judge; a `path` (relative to the working folder) by the path rules.
 */
export type Access = "read" | "act" | "ask" | { command: string } | { path: string; write?: boolean };

/** What a call is, as the approver and the events show it. */
export type Subject =
  | { kind: "command"; command: string }
  | { kind: "path"; access: "read" | "write"; path: string }
  | { kind: "tool"; tool: string; input: unknown };

/**
 * The gate's conclusion about one call before the mode is applied. `safe`: reads only, unasked in
 * every mode; `act`: unasked, but changes something; `contained`: a command the judge cannot prove
 * read-only that runs unasked in an OS sandbox confined to the working folder, offline (the sandbox's
 * `auto`); `approved`: the approvals file allows it; `needs`: the user must approve it; `denied`: the
 * approvals file denies it; `never`: refused in every mode, bypassPermissions included.
 */
export interface Verdict {
  kind: "safe" | "act" | "contained" | "approved" | "needs" | "denied" | "never";
  /** The call only reads: plan mode may still ask about it (a read outside the roots). */
  readOnly: boolean;
  subject: Subject;
  /** Why it is not safe, in a few words (empty when safe). */
  reason: string;
  /** The entry "always" adds to the approvals file; absent when the answer lasts for this process only. */
  alwaysSaves?: string;
  /** The entry "deny always" adds to the denied list; absent when nothing is saved. */
  denySaves?: string;
  /** Under the path rules: the real path judged (symlinks and `..` resolved), for the tool to use. */
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

/**
 * A call the gate has judged. `readOnly` is known at once (the call may run alongside other reads);
 * `settle` applies the mode as it is then, asks the approver when the policy says so, saves
 * "always" answers, emits the `approval` event, and resolves to the decision. Never rejects.
 */
export interface Judged {
  readonly readOnly: boolean;
  settle(): Promise<Decision>;
}

/**
 * The user's answer to a plan: `answered` with the mode to continue in (`undefined`: stay in plan
 * mode), or not answered (nobody can answer, as in `run` and cron) with the refusal the model reads.
 * Never `bypassPermissions`: only the user enters it, by choosing the mode themselves.
 */
export type LeavePlanAnswer =
  | { answered: true; mode: Exclude<PermissionMode, "bypassPermissions"> | undefined }
  | { answered: false; reason: string };

/** The gate as tools and the dispatcher see it. Implementations never throw for a refusal. */
export interface Gate {
  /** The mode now: read at each check, so a change applies from the next tool call. */
  readonly mode: PermissionMode;
  /** Judges one call, once; see Judged. Never rejects: a failing judge refuses the call. */
  check(call: GateCall): Promise<Judged>;
  /** Shows the approver a plan: "allow once" continues in `default`, "allow always" in `acceptEdits`. */
  askLeavePlan(plan: string, toolUseId: string): Promise<LeavePlanAnswer>;
  /** Whether the approvals file denies this tool name (a server tool is then not offered at all). */
  deniesTool(tool: string): boolean;
}

/** The folders a command runs from: relative paths and `cd` from `cwd`, `~` from `home`. */
export interface CommandPlace {
  cwd: string;
  home: string;
}

/** The command judge's conclusion: a verdict kind, why, and what "always" would save. */
export interface CommandVerdict {
  kind: "safe" | "contained" | "approved" | "needs" | "denied" | "never";
  reasons: string[];
  /** The allowed entry "always" saves; absent when the command is too broad to be one. */
  alwaysSaves?: string;
}

/**
 * Judges shell commands for the gate (the shell module provides one): whether a command is
 * provably read-only, listed in the approvals file, or refused in every mode. Never rejects.
 */
export interface CommandJudge {
  judge(command: string, approvals: ApprovalLists, place: CommandPlace): Promise<CommandVerdict>;
}
