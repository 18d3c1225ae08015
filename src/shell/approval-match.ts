// Matching a command against the approvals lists: exact entries, and word patterns in which a bare `*` stands for any words.
import { broadPatternReason } from "../gate/approval-entries.js";
import { parseShellSync, type ParsedShell, type ShellRedirect, type ShellWord } from "./shell-parse.js";

export { normalizeCommand, type ApprovalLists } from "../gate/approval-entries.js";

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

function isWildcard(word: ShellWord): boolean {
  return word.glob && word.value === "*";
}

/** A `*` matches one word; a trailing `*` matches any number of remaining words (none included). */
function matchesPattern(argv: readonly ShellWord[], pattern: readonly ShellWord[]): boolean {
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

/** Denied when the command is a denied entry, or any simple command in it has an entry's words (`ls && rm -rf 'build'`). */
export function isDenied(normalized: string, parsed: ParsedShell, denied: readonly string[]): boolean {
  if (denied.includes(normalized)) return true;
  const patterns = denied.map(compilePattern).filter((p): p is ShellWord[] => p !== null);
  return patterns.length > 0 && parsed.commands.some((c) => patterns.some((p) => matchesPattern(c.argv, p)));
}

/**
 * Approved when the command is an allowed entry, or exactly one understood simple command (no chain, substitution,
 * assignment or unsafe redirection) matching an allowed pattern. Entries too broad (`broadPatternReason`) approve nothing.
 */
export function isAllowed(normalized: string, parsed: ParsedShell, allowed: readonly string[], redirectReason: (redirect: ShellRedirect) => string | null): boolean {
  if (allowed.some((entry) => entry === normalized && broadPatternReason(entry) === null)) return true;
  const only = parsed.commands[0];
  if (parsed.problems.length > 0 || parsed.commands.length !== 1 || only === undefined || only.nested) return false;
  if (only.assignments.length > 0 || only.redirects.some((r) => redirectReason(r) !== null)) return false;
  return allowed.some((entry) => {
    const pattern = compilePattern(entry);
    return pattern !== null && pattern.some(isWildcard) && broadPatternReason(entry) === null && matchesPattern(only.argv, pattern);
  });
}
