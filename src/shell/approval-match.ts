// Matching a command against the approvals lists: exact entries, and word patterns in which a bare `*` stands for any words.
import { parseShellSync } from "./shell-parse.js";
import type { ParsedShell, ShellRedirect, ShellWord, SimpleCommand } from "./shell-parse.js";
import { broadPatternReason } from "../gate/approval-entries.js";

export { normalizeCommand, type ApprovalLists } from "../gate/approval-entries.js";

const MAX_CACHED_PATTERNS = 1_000;
const patternCache = new Map<string, ShellWord[] | null>();

/**
 * The words of an entry that parses as one plain simple command (no chain,
 * substitution, redirection or assignment); null otherwise. Needs the parser loaded.
 */
export function compilePattern(entry: string): ShellWord[] | null {
  const cached = patternCache.get(entry);
  if (cached !== undefined) return cached;
  const parsed = parseShellSync(entry);
  // Not parsed yet (the grammar is not loaded): nothing to remember.
  if (parsed === undefined) return null;
  const only = parsed.commands[0];
  const clean = parsed.problems.length === 0 && parsed.commands.length === 1 && only !== undefined;
  const pattern = clean && only.redirects.length === 0 && only.assignments.length === 0 ? only.argv : null;
  if (patternCache.size >= MAX_CACHED_PATTERNS) patternCache.clear();
  patternCache.set(entry, pattern);
  return pattern;
}

function isWildcard(word: ShellWord): boolean {
  return word.glob && word.value === "*";
}

/** A `*` matches one word; a trailing `*` matches any number of remaining words (none included). */
export function matchesPattern(argv: readonly ShellWord[], pattern: readonly ShellWord[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as ShellWord;
    const word = argv[i];
    if (isWildcard(p)) {
      if (i === pattern.length - 1) return true;
      if (word === undefined) return false;
      continue;
    }
    if (word === undefined || word.glob || word.value !== p.value) return false;
  }
  return argv.length === pattern.length;
}

/**
 * Denied when the command is a denied entry, or any simple command in it
 * (substitutions included) has the words of a denied entry: `rm  -rf 'build'`
 * and `ls && rm -rf build` are denied by `rm -rf build`, and `*` words match anything.
 */
export function isDenied(normalized: string, parsed: ParsedShell, denied: readonly string[]): boolean {
  if (denied.includes(normalized)) return true;
  const patterns = denied.map(compilePattern).filter((p): p is ShellWord[] => p !== null);
  return patterns.length > 0 && parsed.commands.some((c) => patterns.some((p) => matchesPattern(c.argv, p)));
}

/**
 * Approved when the command is an allowed entry, or is exactly one fully
 * understood simple command (no chain, substitution, assignment or unsafe
 * redirection) matching an allowed pattern. Entries that are too broad
 * (`broadPatternReason`) approve nothing.
 */
export function isAllowed(
  normalized: string,
  parsed: ParsedShell,
  allowed: readonly string[],
  redirectReason: (redirect: ShellRedirect) => string | null,
): boolean {
  if (allowed.some((entry) => entry === normalized && broadPatternReason(entry) === null)) return true;
  const only: SimpleCommand | undefined = parsed.commands[0];
  if (parsed.problems.length > 0 || parsed.commands.length !== 1 || only === undefined || only.nested) return false;
  if (only.assignments.length > 0 || only.redirects.some((r) => redirectReason(r) !== null)) return false;
  return allowed.some((entry) => {
    const pattern = compilePattern(entry);
    return pattern !== null && pattern.some(isWildcard) && broadPatternReason(entry) === null && matchesPattern(only.argv, pattern);
  });
}
