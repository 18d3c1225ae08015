// checkCommandSafety: safe only when every simple command is provably read-only; then the approvals lists, whose patterns
// match words, a bare `*` standing for any.
import { messageOf } from "../errors.js";
import { broadPatternReason, normalizeCommand, type ApprovalLists } from "../gate/approval-entries.js";
import { parseArgs, type ParsedArgs } from "./arg-spec.js";
import { familyReason } from "./command-families.js";
import { commandReads } from "./command-reads.js";
import { PROGRAM_RULES, type ProgramRule } from "./program-rules.js";
import type { ReadPlan } from "./read-plan.js";
import { isShellParserLoaded, loadShellParser, parsePlainCommand, parseShellSync } from "./shell-parse.js";
import type { ParsedShell, ShellRedirect, ShellWord, SimpleCommand } from "./shell-parse.js";
import { judgeWord, lineBases, wordVariants, type PathContext, type WordScope } from "./word-reads.js";

export type { ApprovalLists } from "../gate/approval-entries.js";

/** `safe`: provably read-only, terminating, offline, no secrets. `approved` / `denied`: listed in the approvals file. `needs_approval`: the rest. */
export type SafetyVerdict = "safe" | "approved" | "denied" | "needs_approval";
/** Where the command will run: relative paths, `cd` and `..` from `cwd`, `~` from `home`. Without them the gate assumes the worst. */
export type SafetyOptions = PathContext;

/** A verdict with the reasons it is not safe (empty when safe), fit to show the user or the model. */
export interface SafetyAssessment {
  verdict: SafetyVerdict;
  reasons: string[];
  /** For a safe command: what it will read, and whether the approvals file allows it (should the disk pass demote it). */
  plan?: ReadPlan;
  allowed?: () => boolean;
}

/**
 * Classifies a shell command: `denied` (an entry, or any simple command matching a denied pattern) first, then `safe`, then `approved`
 * (an entry, or one whole simple command matching an allowed pattern), else `needs_approval`. Never throws.
 */
export async function checkCommandSafety(command: string, approvals?: ApprovalLists, options?: SafetyOptions): Promise<SafetyVerdict> {
  return (await assessCommand(command, approvals, options)).verdict;
}

/** `checkCommandSafety` with the reasons; a plain command safe or denied is judged without the grammar when every denied entry is plain. */
export async function assessCommand(command: string, approvals?: ApprovalLists, options?: SafetyOptions): Promise<SafetyAssessment> {
  const plain = isShellParserLoaded() ? undefined : parsePlainCommand(command);
  if (plain !== undefined && (approvals?.denied ?? []).every((entry) => parsePlainCommand(entry) !== undefined)) {
    const assessed = assessParsed(command, plain, approvals, options);
    if (assessed.verdict === "safe" || assessed.verdict === "denied") return assessed;
  }
  try {
    await loadShellParser();
  } catch (error) {
    const problem = `the shell parser could not be loaded (${messageOf(error)})`;
    return assessParsed(command, { commands: [], problems: [problem] }, approvals, options);
  }
  return assessParsed(command, parseShellSync(command) as ParsedShell, approvals, options);
}

function assessParsed(command: string, parsed: ParsedShell, approvals: ApprovalLists = {}, options: SafetyOptions = {}): SafetyAssessment {
  const normalized = normalizeCommand(command);
  if (isDenied(normalized, parsed, approvals.denied ?? [])) return { verdict: "denied", reasons: ["it is in the denied list of the approvals file"] };
  const { reasons, plan, scope } = judgeLine(parsed, options);
  const allowed = (): boolean => isAllowed(normalized, parsed, approvals.allowed ?? [], scope);
  if (reasons.length === 0) return { verdict: "safe", reasons, plan, allowed };
  return { verdict: allowed() ? "approved" : "needs_approval", reasons };
}

function judgeLine(parsed: ParsedShell, context: SafetyOptions): { reasons: string[]; plan: ReadPlan; scope: WordScope } {
  const reasons = [...parsed.problems];
  const plan: ReadPlan = { reads: [], gitContentDirs: [], gitObjects: [] };
  const { bases, reason } = lineBases(parsed.commands, context);
  if (reason !== null) reasons.push(reason);
  const scope: WordScope = { bases, context };
  // Commands inside substitutions run too, so they are judged like the others.
  for (const command of parsed.commands) reasons.push(...commandReasons(command, scope, plan));
  return { reasons: [...new Set(reasons)], plan, scope };
}

function commandReasons(command: SimpleCommand, scope: WordScope, plan: ReadPlan): string[] {
  const reasons = command.redirects.map((r) => redirectReason(r, scope, plan)).filter((r): r is string => r !== null);
  if (command.assignments.length > 0) reasons.push(`sets variables for the command (${command.assignments.join(" ")})`);
  const [name, ...args] = command.argv;
  if (name?.dynamic === true) return [...reasons, "the program name is computed by a substitution"];
  if (name === undefined) {
    if (reasons.length === 0 && command.redirects.length > 0) reasons.push("a redirection without a command");
    return reasons;
  }
  if (name.glob) return [...reasons, `the program name \`${name.value}\` is a wildcard`];
  const rule = PROGRAM_RULES.get(name.value);
  const why = rule === undefined ? familyReason(name.value) : judgeProgram(name.value, rule, args, scope, plan);
  return why === null ? reasons : [...reasons, why];
}

function judgeProgram(program: string, rule: ProgramRule, args: readonly ShellWord[], scope: WordScope, plan: ReadPlan): string | null {
  // Every program of the table answers a lone `--version` with its version or a usage error, and does nothing else.
  if (args.length === 1 && args[0]?.value === "--version" && !args[0].glob && args[0].dynamic !== true) return null;
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
  return rule.check?.(parsed, args) ?? commandReads(program, rule, parsed, args, scope, plan);
}

const OUTPUT_OPS = new Set([">", ">>", ">|", "&>", "&>>"]);
const FD_TARGET = /^([0-9]+-?|-)$/;

/** Why a redirection is not read-only: output anywhere but /dev/null, or input from a secret or a device (added to `plan`). */
function redirectReason(redirect: ShellRedirect, scope: WordScope, plan?: ReadPlan): string | null {
  const { op, target } = redirect;
  if (op === "<<" || op === "<<<" || op === ">&-" || op === "<&-") return null;
  if (target === null) return `a redirection (${op}) it cannot read`;
  if (target.dynamic === true) return `a redirection (${op}) to a target computed by a substitution`;
  const variants = wordVariants(target);
  if ("reason" in variants) return `a redirection (${op}): ${variants.reason}`;
  const isFd = !target.glob && FD_TARGET.test(target.value);
  if ((op === ">&" || op === "<&") && isFd) return null;
  if (OUTPUT_OPS.has(op) || op === ">&") {
    return target.value === "/dev/null" && !target.glob ? null : `writes to ${target.value} (${op})`;
  }
  if (op === "<") {
    const why = judgeWord(target, "content", scope, "<", plan?.reads ?? []);
    return why === null ? null : `an input redirection ${why}`;
  }
  return `the redirection ${op} is not on the read-only list`;
}

const MAX_CACHED_PATTERNS = 1_000;
const patternCache = new Map<string, ShellWord[] | null>();

/** The words of an entry that parses as one simple command without redirection or assignment; null otherwise (or while the grammar is not loaded). */
function compilePattern(entry: string): ShellWord[] | null {
  const cached = patternCache.get(entry);
  if (cached !== undefined) return cached;
  const parsed = parseShellSync(entry);
  if (parsed === undefined) return null;
  const only = parsed.commands[0];
  const clean = parsed.problems.length === 0 && parsed.commands.length === 1 && only !== undefined;
  const pattern = clean && only.redirects.length === 0 && only.assignments.length === 0 ? only.argv : null;
  if (patternCache.size >= MAX_CACHED_PATTERNS) patternCache.clear();
  patternCache.set(entry, pattern);
  return pattern;
}

const isWildcard = (word: ShellWord): boolean => word.glob && word.value === "*";

/** A `*` matches one word; a trailing `*` matches any number of remaining words (none included). */
function matchesPattern(argv: readonly ShellWord[], pattern: readonly ShellWord[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as ShellWord;
    const word = argv[i];
    if (isWildcard(p) && i === pattern.length - 1) return true;
    if (word === undefined || (!isWildcard(p) && (word.glob || word.value !== p.value))) return false;
  }
  return argv.length === pattern.length;
}

/** Denied when the command is a denied entry, or any simple command in it has an entry's words (`ls && rm -rf 'build'`). */
function isDenied(normalized: string, parsed: ParsedShell, denied: readonly string[]): boolean {
  if (denied.includes(normalized)) return true;
  const patterns = denied.map(compilePattern).filter((p): p is ShellWord[] => p !== null);
  return patterns.length > 0 && parsed.commands.some((c) => patterns.some((p) => matchesPattern(c.argv, p)));
}

/** An allowed entry, or one understood simple command (no chain, substitution, assignment, unsafe redirection) matching a pattern not too broad. */
function isAllowed(normalized: string, parsed: ParsedShell, allowed: readonly string[], scope: WordScope): boolean {
  if (allowed.some((entry) => entry === normalized && broadPatternReason(entry) === null)) return true;
  const only = parsed.commands[0];
  if (parsed.problems.length > 0 || parsed.commands.length !== 1 || only === undefined || only.nested) return false;
  if (only.assignments.length > 0 || only.redirects.some((r) => redirectReason(r, scope) !== null)) return false;
  return allowed.some((entry) => {
    const pattern = compilePattern(entry);
    return pattern !== null && pattern.some(isWildcard) && broadPatternReason(entry) === null && matchesPattern(only.argv, pattern);
  });
}
