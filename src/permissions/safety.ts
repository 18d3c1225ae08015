// checkCommandSafety: safe only when every simple command is provably read-only; then the approvals lists.
import { isAllowed, isDenied, normalizeCommand } from "./approval-match.js";
import type { ApprovalLists } from "./approval-match.js";
import { parseArgs } from "./arg-spec.js";
import type { ParsedArgs } from "./arg-spec.js";
import { familyReason } from "./command-families.js";
import { PROGRAM_RULES } from "./program-rules.js";
import type { ProgramRule } from "./program-rules.js";
import { secretReason } from "./secret-paths.js";
import { loadShellParser, parseShellSync } from "./shell-parse.js";
import type { ParsedShell, ShellRedirect, ShellWord, SimpleCommand } from "./shell-parse.js";

export type { ApprovalLists } from "./approval-match.js";

/**
 * `safe`: provably read-only, terminating, offline, no secrets. `approved` / `denied`:
 * listed in the approvals file. `needs_approval`: everything else.
 */
export type SafetyVerdict = "safe" | "approved" | "denied" | "needs_approval";

/** A verdict with the reasons it is not safe (empty when safe), fit to show the user or the model. */
export interface SafetyAssessment {
  verdict: SafetyVerdict;
  reasons: string[];
}

/**
 * Classifies a shell command. Order: `denied` (exact entry, or any simple
 * command matching a denied pattern) beats everything; then `safe`; then
 * `approved` (exact entry, or a single whole simple command matching an allowed
 * pattern); else `needs_approval`. Never throws.
 */
export async function checkCommandSafety(command: string, approvals?: ApprovalLists): Promise<SafetyVerdict> {
  return (await assessCommand(command, approvals)).verdict;
}

/** `checkCommandSafety` with the reasons. Loads the parser on first use. */
export async function assessCommand(command: string, approvals?: ApprovalLists): Promise<SafetyAssessment> {
  try {
    await loadShellParser();
  } catch (error) {
    const problem = `the shell parser could not be loaded (${error instanceof Error ? error.message : String(error)})`;
    return assessParsed(command, { commands: [], problems: [problem] }, approvals);
  }
  return assessCommandSync(command, approvals) as SafetyAssessment;
}

/** The synchronous path, for `readOnly` checks: undefined until the parser has been loaded once. */
export function assessCommandSync(command: string, approvals?: ApprovalLists): SafetyAssessment | undefined {
  const parsed = parseShellSync(command);
  return parsed === undefined ? undefined : assessParsed(command, parsed, approvals);
}

/** The synchronous verdict, undefined until the parser has been loaded (`loadShellParser`). */
export function checkCommandSafetySync(command: string, approvals?: ApprovalLists): SafetyVerdict | undefined {
  return assessCommandSync(command, approvals)?.verdict;
}

function assessParsed(command: string, parsed: ParsedShell, approvals: ApprovalLists = {}): SafetyAssessment {
  const normalized = normalizeCommand(command);
  if (isDenied(normalized, parsed, approvals.denied ?? [])) return { verdict: "denied", reasons: ["it is in the denied list of the approvals file"] };
  const reasons = unsafeReasons(parsed);
  if (reasons.length === 0) return { verdict: "safe", reasons };
  if (isAllowed(normalized, parsed, approvals.allowed ?? [], redirectReason)) return { verdict: "approved", reasons };
  return { verdict: "needs_approval", reasons };
}

/** Every reason the parsed command is not safe, without repeats; empty when it is safe. */
export function unsafeReasons(parsed: ParsedShell): string[] {
  const reasons = [...parsed.problems];
  // Commands inside substitutions run too, so they are judged like the others.
  for (const command of parsed.commands) reasons.push(...commandReasons(command));
  return [...new Set(reasons)];
}

function commandReasons(command: SimpleCommand): string[] {
  const reasons = command.redirects.map(redirectReason).filter((r): r is string => r !== null);
  if (command.assignments.length > 0) reasons.push(`sets variables for the command (${command.assignments.join(" ")})`);
  const [name, ...args] = command.argv;
  if (name?.dynamic === true) return [...reasons, "the program name is computed by a substitution"];
  if (name === undefined) {
    if (reasons.length === 0 && command.redirects.length > 0) reasons.push("a redirection without a command");
    return reasons;
  }
  if (name.glob) return [...reasons, `the program name \`${name.value}\` is a wildcard`];
  const rule = PROGRAM_RULES.get(name.value);
  const why = rule === undefined ? familyReason(name.value) : judgeProgram(name.value, rule, args);
  return why === null ? reasons : [...reasons, why];
}

function judgeProgram(program: string, rule: ProgramRule, args: readonly ShellWord[]): string | null {
  let parsed: ParsedArgs = { flags: [], positionals: [...args] };
  if (rule.spec !== undefined) {
    const result = parseArgs(program, args, rule.spec);
    if (!result.ok) return result.reason;
    parsed = result.args;
  }
  if (!rule.printsArgs) {
    const computed = args.find((w) => w.dynamic === true);
    if (computed !== undefined) return `${program}: the argument \`${computed.value}\` is computed by a substitution, so the gate cannot see what it opens`;
  }
  const why = rule.check?.(parsed, args) ?? null;
  if (why !== null) return why;
  // Literal paths are checked for every program (`du --files0-from=/proc/1/environ` prints what it reads);
  // wildcards only for programs that print contents, since `ls *` reveals names alone.
  for (const word of args) {
    const secret = word.glob && !rule.readsContent ? null : secretReason(word);
    if (secret !== null) return `${program} ${secret}`;
  }
  return null;
}

const OUTPUT_OPS = new Set([">", ">>", ">|", "&>", "&>>"]);
const FD_TARGET = /^([0-9]+-?|-)$/;

/** Why a redirection is not read-only: output anywhere but /dev/null, or input from a secret or a device. */
export function redirectReason(redirect: ShellRedirect): string | null {
  const { op, target } = redirect;
  if (op === "<<" || op === "<<<" || op === ">&-" || op === "<&-") return null;
  if (target === null) return `a redirection (${op}) it cannot read`;
  if (target.dynamic === true) return `a redirection (${op}) to a target computed by a substitution`;
  const isFd = !target.glob && FD_TARGET.test(target.value);
  if ((op === ">&" || op === "<&") && isFd) return null;
  if (OUTPUT_OPS.has(op) || op === ">&") {
    return target.value === "/dev/null" && !target.glob ? null : `writes to ${target.value} (${op})`;
  }
  if (op === "<") {
    const secret = secretReason(target);
    return secret === null ? null : `an input redirection ${secret}`;
  }
  return `the redirection ${op} is not on the read-only list`;
}
