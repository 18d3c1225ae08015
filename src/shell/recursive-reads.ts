// Commands that read or list a whole folder tree, and which folders: grep -r, rg, git diff, diff, gzip -r, ls -R, find, du, tree.
import type { ParsedArgs, ParsedFlag } from "./arg-spec.js";
import { NO_FILTERS, type TreeFilters } from "./read-plan.js";
import { DECOMPRESSORS } from "./rules-archive.js";
import { gitSubcommandAt } from "./rules-git.js";
import { findStartingPoints } from "./program-rules.js";
import { PROCESS_SUBSTITUTION_PATH, type ShellWord } from "./shell-words.js";

/** A folder a command walks: `tree` reads every file's content, `listing` prints every name. */
export interface TreeRoot { word: ShellWord; kind: "tree" | "listing"; filters: TreeFilters }
const DOT: ShellWord = { value: ".", glob: false };

/** The folders this command walks (`parsed` by its spec, `words` raw), starting at `.` when none is named; empty when it walks none. */
export function treeRoots(program: string, parsed: ParsedArgs, words: readonly ShellWord[]): TreeRoot[] {
  const has = (...names: string[]): boolean => parsed.flags.some((f) => names.includes(f.name));
  if (program === "grep") return grepRoots(parsed, has);
  if (program === "rg") return rgRoots(parsed, has);
  if (program === "git") return gitDiffRoots(words);
  if (program === "diff") return diffRoots(parsed);
  if (program === "find") return walked(findStartingPoints(words).points, "listing", { ...NO_FILTERS, followLinks: words.some((w) => w.value === "-L" || w.value === "-follow") });
  if (program === "du" || (program === "ls" && has("-R", "--recursive")) || (program === "tree" && !has("--fromfile", "--fromtabfile"))) return walked(parsed.positionals, "listing");
  return DECOMPRESSORS.includes(program) && has("-r", "--recursive") ? parsed.positionals.map((word) => ({ word, kind: "tree", filters: FOLLOWING })) : [];
}

const FOLLOWING: TreeFilters = { ...NO_FILTERS, followLinks: true };

/** diff reads a folder operand even without -r (with -N a file on one side only is printed whole): every operand is walked. */
function diffRoots(parsed: ParsedArgs): TreeRoot[] {
  const named = parsed.flags.filter((f) => (f.name === "--from-file" || f.name === "--to-file") && f.value !== null).map((f) => f.value as ShellWord);
  // `-` is stdin; the pipe of a `<( )` is no folder (and its commands were judged on their own).
  const operands = [...parsed.positionals, ...named].filter((word) => word.value !== "-" && (word.glob || word.value !== PROCESS_SUBSTITUTION_PATH));
  return operands.map((word) => ({ word, kind: "tree", filters: NO_FILTERS }));
}

function grepRoots(parsed: ParsedArgs, has: (...names: string[]) => boolean): TreeRoot[] {
  const recurseValue = (f: ParsedFlag): boolean => (f.name === "-d" || f.name === "--directories") && f.value?.value === "recurse";
  if (!has("-r", "-R", "--recursive", "--dereference-recursive") && !parsed.flags.some(recurseValue)) return [];
  const files = has("-e", "-f", "--regexp", "--file") ? parsed.positionals : parsed.positionals.slice(1);
  const globs = (...names: string[]): ParsedFlag[] => parsed.flags.filter((f) => names.includes(f.name) && f.value !== null);
  const fileFilters = globs("--include", "--exclude").map((f) => ({ include: f.name === "--include", glob: f.value?.value ?? "" }));
  const excludeDirs = globs("--exclude-dir").map((f) => f.value?.value ?? "");
  return walked(files, "tree", { ...NO_FILTERS, followLinks: has("-R", "--dereference-recursive"), fileFilters, excludeDirs, opaqueFilters: has("--exclude-from") });
}

function rgRoots(parsed: ParsedArgs, has: (...names: string[]) => boolean): TreeRoot[] {
  if (has("--type-list")) return [];
  const noPattern = has("-e", "-f", "--regexp", "--file", "--files");
  const files = noPattern ? parsed.positionals : parsed.positionals.slice(1);
  // rg skips hidden files (--hidden and -u are refused) and follows links only with -L.
  return walked(files, has("--files") ? "listing" : "tree", { ...NO_FILTERS, skipHidden: true, followLinks: has("-L", "--follow") });
}

/** `git diff` compares folders when given two paths (`--no-index`, or outside a repository): each is walked. */
function gitDiffRoots(words: readonly ShellWord[]): TreeRoot[] {
  const sub = gitSubcommandAt(words);
  if (words[sub]?.value !== "diff") return [];
  const rest = words.slice(sub + 1);
  const dashes = rest.findIndex((w) => w.value === "--");
  const paths = rest.filter((w, i) => (dashes !== -1 && i > dashes) || (!w.value.startsWith("-") && (dashes === -1 || i < dashes)));
  return paths.map((word) => ({ word, kind: "tree", filters: NO_FILTERS }));
}

/** Each of `words`, or `.` when there is none, as a root walked that way. */
function walked(words: readonly ShellWord[], kind: TreeRoot["kind"], filters: TreeFilters = NO_FILTERS): TreeRoot[] {
  return (words.length > 0 ? words : [DOT]).map((word) => ({ word, kind, filters }));
}
