// The gate's vocabulary and its policy: what a tool declares a call may touch, what the gate concludes, what a verdict
// and a mode decide (allow, ask or refuse), and the sentences the model reads when refused.
import { PERMISSION_MODES as MODES, type PermissionModeName } from "../types.js";
import type { ApprovalLists } from "./approval-entries.js";

/**
 * `default` asks for what is not provably safe; `acceptEdits` also edits inside the roots unasked; `plan` runs only what reads; `dontAsk` refuses what
 * `default` would ask about (as `run` and cron do); `bypassPermissions` runs all but the denied, and only the user can enter it.
 */
export type PermissionMode = PermissionModeName;
/** Every mode, in order of how much runs unasked. */
export const PERMISSION_MODES: readonly PermissionMode[] = MODES;

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

/**
 * The policy, in one place: denied and never are refused in every mode; safe runs in every mode; plan refuses what does not only read; what acts, what the
 * sandbox contains, what the approvals file allows, and anything in bypassPermissions runs; dontAsk refuses what the others ask about; the rest asks.
 */
export function decide(verdict: Pick<Verdict, "kind" | "readOnly">, mode: PermissionMode): "allow" | "ask" | "refuse" {
  if (verdict.kind === "never" || verdict.kind === "denied") return "refuse";
  if (verdict.kind === "safe") return "allow";
  if (mode === "plan" && !verdict.readOnly) return "refuse";
  if (verdict.kind === "act" || verdict.kind === "contained" || verdict.kind === "approved" || mode === "bypassPermissions") return "allow";
  return mode === "dontAsk" ? "refuse" : "ask";
}

/** Why a call was refused: the policy's refusal in a mode, or the approver's answer. */
export type RefusalCause = "denied" | "never" | "plan" | "dontAsk" | "unavailable" | "userDenied";

/** The cause of a refusal by the policy alone, before anyone is asked. */
export function policyCause(verdict: Pick<Verdict, "kind">, mode: PermissionMode): RefusalCause {
  if (verdict.kind === "never" || verdict.kind === "denied") return verdict.kind;
  return mode === "plan" ? "plan" : "dontAsk";
}

const SWITCH_TO_DEFAULT = "/mode default in the REPL, --permission-mode default on the command line";
const NOBODY = "and nobody is here to give it in this non-interactive run.";
const DONT_ASK = "and the permission mode dontAsk refuses without asking whatever would need it.";

/** The sentence the model reads for a refused call: what happened, and what to do instead of retrying. */
export function refusalText(cause: RefusalCause, subject: Subject, why: string): string {
  if (cause === "never") return `Refused in every mode: \`${shownOf(subject)}\` is never allowed because ${why}. Do not retry it or a variation of it.`;
  if (subject.kind === "command") return commandRefusal(cause, subject.command, why);
  if (subject.kind === "path") return pathRefusal(cause, subject.access === "read" ? "reading" : "writing", subject.path, why);
  return toolRefusal(cause, subject.tool);
}

function commandRefusal(cause: RefusalCause, command: string, why: string): string {
  const needs = `Not run: \`${command}\` needs the user's approval (${why}),`;
  if (cause === "denied") return `The user denied this command: \`${command}\` is on the denied list of exec-approvals.json. Do not run it again or work around it; choose another approach or ask the user.`;
  if (cause === "plan") return `Plan mode is read-only: only commands the gate can prove read-only run, and \`${command}\` is not (${why}). Describe the change in your plan instead of running it.`;
  if (cause === "userDenied") return `The user denied this command (\`${command}\`). Do not retry it; choose another approach or ask the user what they want.`;
  if (cause === "unavailable") return `${needs} ${NOBODY} Do not retry it or try variations of it. Finish without it and say in your reply exactly which command you wanted to run and why, so the user can run or approve it.`;
  return (
    `${needs} ${DONT_ASK} Do not retry it or try variations of it. Finish without it and say in your reply which command you wanted to run and why: ` +
    `the user can allow it by adding it to the allowed list of exec-approvals.json, or by switching to the default mode (${SWITCH_TO_DEFAULT}) to be asked.`
  );
}

function pathRefusal(cause: RefusalCause, doing: "reading" | "writing", path: string, why: string): string {
  const needs = `Not allowed: ${doing} ${path} needs the user's approval (${why}),`;
  if (cause === "plan") return `Plan mode is read-only: writing ${path} is not allowed. Describe the change in your plan instead.`;
  if (cause === "userDenied") return `The user denied ${doing} ${path}. Do not retry it; work inside the project folder or ask the user.`;
  if (cause === "unavailable") return `${needs} ${NOBODY} Do not retry it; say in your reply which file you needed and why.`;
  return `${needs} ${DONT_ASK} Do not retry it. Say in your reply which file you needed and why: the user can allow it by switching to the default mode (${SWITCH_TO_DEFAULT}) to be asked.`;
}

function toolRefusal(cause: RefusalCause, tool: string): string {
  if (cause === "denied") return `The user denied the tool ${tool}: it is on the denied list of exec-approvals.json. Do not call it again; choose another approach or ask the user.`;
  if (cause === "plan") return `Plan mode is read-only: ${tool} is not a read-only tool, so it is not called. Describe what you would do with it in your plan instead.`;
  if (cause === "userDenied") return `The user denied this call of ${tool}. Do not retry it; choose another approach or ask the user what they want.`;
  if (cause === "unavailable") return `Not run: ${tool} needs the user's approval, ${NOBODY} Do not retry it. Finish without it and say in your reply which call you wanted to make and why, so the user can approve it.`;
  return (
    `Not run: ${tool} needs the user's approval, ${DONT_ASK} Do not retry it. Finish without it and say in your reply which call you wanted to make and why: ` +
    `the user can allow it by adding ${tool} to the allowed list of exec-approvals.json, or by switching to the default mode (${SWITCH_TO_DEFAULT}) to be asked.`
  );
}

/** exit_plan_mode where nobody can answer (`miniclaw run`, cron): only the user leaves plan mode. */
export const LEAVE_PLAN_UNAVAILABLE =
  "Still in plan mode: plan mode can only be left by the user, and nobody is here to approve the plan in this non-interactive run. " +
  "Do not call exit_plan_mode again or try to carry out the plan. Finish with the plan as your reply, so the user can approve it and run it in another mode.";

/** A subject in one line: the command, `read /path`, or the tool's name. */
export function shownOf(subject: Subject): string {
  return subject.kind === "command" ? subject.command : subject.kind === "path" ? `${subject.access} ${subject.path}` : subject.tool;
}
