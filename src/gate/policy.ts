// The whole permission policy: a verdict and a mode decide allow, ask or refuse; and the sentences the model reads when refused.
import type { PermissionMode, Subject, Verdict } from "./context.js";

/** The whole policy, in the order it applies: what every mode refuses, what every mode runs, plan's refusals, what runs unasked, dontAsk; the rest asks. */
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
