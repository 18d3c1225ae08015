// Matching a command against the approvals lists: exact entries, and word patterns in which a bare `*` stands for any words.
import { parseShellSync } from "./shell-parse.js";
import type { ParsedShell, ShellRedirect, ShellWord, SimpleCommand } from "./shell-parse.js";

/** The `{allowed, denied}` lists of the approvals file, as `checkCommandSafety` takes them. */
export interface ApprovalLists {
  allowed?: readonly string[];
  denied?: readonly string[];
}

/** The form in which commands are compared and stored: surrounding whitespace removed, nothing else changed. */
export function normalizeCommand(command: string): string {
  return command.trim();
}

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
 * Why an allowed entry is too broad to honour, or null. A pattern whose program is a
 * wildcard (`*`, `* -rf`), or whose arguments are only wildcards and options (`rm *`,
 * `rm -rf *`, `bash *`), approves every use of a program: a planted or careless entry
 * like that would let anything run unasked. Words are split on blanks, so a quoted `'*'`
 * counts as a wildcard too (stricter, never looser).
 */
export function broadPatternReason(entry: string): string | null {
  const words = entry.trim().split(/\s+/).filter((w) => w !== "");
  const [program, ...args] = words;
  if (program === undefined) return null;
  if (/[*?[]/.test(program)) return "its program is a wildcard, so it approves any command";
  if (args.includes("*") && args.every((w) => w === "*" || w.startsWith("-"))) return `it approves every use of ${program}`;
  return null;
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

/** An entry that names tools rather than a command: the characters of tool names, with `*` and `?` as wildcards. */
const TOOL_ENTRY = /^[A-Za-z0-9_*?-]+$/;

/**
 * Whether an allowed entry can approve tools: a tool name, or a glob of them that starts with
 * a literal character (`mcp__github__*`). A glob that starts with a wildcard (`*`, `*_file`)
 * would approve tools of any name, so it approves none.
 */
export function isToolEntry(entry: string): boolean {
  return TOOL_ENTRY.test(entry) && !/^[*?]/.test(entry);
}

/**
 * True when one of the entries names the tool: exactly, or as a glob (`*` any characters, `?`
 * one). Allowed lists pass `narrowOnly`, so entries that start with a wildcard match nothing;
 * a denied `*` denies every tool, as it denies every command.
 */
export function matchesToolName(name: string, entries: readonly string[], narrowOnly: boolean): boolean {
  return entries.some((entry) => {
    if (!TOOL_ENTRY.test(entry) || (narrowOnly && !isToolEntry(entry))) return false;
    const source = entry.replace(/[*?]/g, (w) => (w === "*" ? ".*" : "."));
    return new RegExp(`^${source}$`).test(name);
  });
}
