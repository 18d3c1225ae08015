// What one allowed program reads, judged before it runs: each argument by its role, the folders it walks (grep -r, rg, git diff,
// diff, gzip -r, ls -R, find, du, tree), the git history it shows.
import { optionValues, type ParsedArgs, type ParsedFlag } from "./arg-spec.js";
import { findStartingPoints, type ProgramRule } from "./program-rules.js";
import { NO_FILTERS, type ReadPlan, type TreeFilters } from "./read-plan.js";
import { DECOMPRESSORS } from "./rules-archive.js";
import { gitSubcommandAt } from "./rules-git.js";
import { PROCESS_SUBSTITUTION_PATH, type ShellWord } from "./shell-words.js";
import { homeReason, judgeWord, literalPathReason, physicalWords, resolveWord, wordVariants, type WordScope } from "./word-reads.js";

/**
 * Why what `program` reads from the folders of `scope` is not safe, or null with it added to `plan`: each argument (content for programs
 * that print it and for file options' values, names otherwise), each folder it walks, the repositories whose history git shows.
 */
export function commandReads(program: string, rule: ProgramRule, parsed: ParsedArgs, args: readonly ShellWord[], scope: WordScope, plan: ReadPlan): string | null {
  const contentMode = parsed.flags.some((f) => f.name.length >= 3 && (rule.contentModeFlags ?? []).some((flag) => flag.startsWith(f.name)));
  // `--include='.en*'` chooses files by a wildcard, quoted or not.
  const globValues = optionValues(args, rule.globOptions ?? [], rule.spec).map((word) => ({ value: word.value.replace(/^!/, ""), glob: true }));
  const operands = new Set(parsed.positionals);
  // What a program only prints or compares (`echo .env`, `[ -f .env ]`) it does not open, but bash still expands its braces.
  for (const word of rule.printsArgs === true ? args : []) {
    const variants = wordVariants(word);
    if ("reason" in variants) return `${program} ${variants.reason}`;
  }
  const judged = [
    ...(rule.printsArgs === true ? [] : args).map((word) => [word, rule.readsContent === true || contentMode, operands.has(word)] as const),
    ...optionValues(args, rule.fileOptions ?? [], rule.spec).map((word) => [word, true, true] as const),
    ...globValues.map((word) => [word, true, false] as const),
  ];
  for (const [word, content, opened] of judged) {
    const why = judgeWord(word, content ? "content" : "name", scope, program, plan.reads, opened);
    if (why !== null) return `${program} ${why}`;
  }
  for (const root of treeRoots(program, parsed, args)) {
    const why = judgeRoot(root, scope, program, plan);
    if (why !== null) return why;
  }
  if (program !== "git" || !gitShowsContent(args)) return null;
  // After `cd -` or `cd ~user` git runs in a repository the gate cannot find.
  const unknown = scope.bases.find((b) => b.startsWith("~"));
  if (unknown !== undefined) return `git may print file contents from the history of a repository in \`${unknown}\`, a folder the gate cannot know`;
  plan.gitContentDirs.push(...scope.bases.filter((b) => b.startsWith("/")));
  plan.gitObjects.push(...gitObjectNames(args));
  return null;
}

/** A walked folder: content readers never of `/`, a home folder or what holds one; listings never of `/`. */
function judgeRoot(root: TreeRoot, scope: WordScope, program: string, plan: ReadPlan): string | null {
  const variants = wordVariants(root.word);
  if ("reason" in variants) return `${program} ${variants.reason}`;
  for (const { value, glob } of variants.values) {
    // A wildcard root walks every match: judge the folder the wildcard starts in.
    const fixed = glob ? value.slice(0, Math.max(value.search(/[*?[]/), 0)).replace(/[^/]*$/, "") || "." : value;
    for (const path of resolveWord(fixed, scope.bases, scope.context.home)) {
      const why = root.kind === "tree" ? (homeReason(path, scope.context.home) ?? literalPathReason(path, scope.context)) : path === "/" ? "lists the whole file system from /" : null;
      if (why !== null) return `${program} ${why}${glob ? ` (through the wildcard \`${value}\`)` : ""}`;
    }
    const physical = glob ? [] : physicalWords(value, scope.bases, scope.context.home);
    for (const path of resolveWord(value, scope.bases, scope.context.home)) {
      if (path.startsWith("/")) plan.reads.push({ path, glob, kind: root.kind, program, filters: root.filters, ...(physical.length > 0 ? { physical } : {}) });
    }
  }
  return null;
}

/** git subcommands that print names, refs or counts only; the others may print file contents. */
const GIT_NAMES_ONLY = new Set([
  "status", "branch", "rev-parse", "remote", "ls-files", "tag", "check-ignore", "shortlog", "describe", "rev-list", "for-each-ref", "ls-tree", "count-objects",
  "merge-base", "name-rev", "show-ref", "symbolic-ref", "var", "version", "help", "worktree",
]);
const GIT_LOG_LIKE = new Set(["log", "reflog", "whatchanged"]);
const PATCH_FLAG = /^(--patch.*|--unified.*|--word-diff.*|--color-words.*|--function-context|--full-diff|--cc|--diff-merges.*|--remerge-diff|--text|--binary|-[LU].*|-[a-zA-Z0-9]*[puWcm][a-zA-Z0-9]*)$/;

/** The revisions git names, for the history check: words after the subcommand before `--` (`X:path` → X, ranges → both ends, `^X` → X). */
function gitObjectNames(args: readonly ShellWord[]): string[] {
  const names: string[] = [];
  for (const word of args.slice(gitSubcommandAt(args) + 1)) {
    if (word.value === "--") break;
    if (word.value.startsWith("-") || word.dynamic === true) continue;
    for (const end of (word.value.split(":")[0] ?? "").split(/\.{2,3}/)) {
      const name = end.replace(/^\^+/, "").replace(/\^(@|!|-[0-9]*)$/, "");
      if (name !== "") names.push(name);
    }
  }
  return names;
}

function gitShowsContent(args: readonly ShellWord[]): boolean {
  const sub = args[gitSubcommandAt(args)];
  if (sub === undefined || GIT_NAMES_ONLY.has(sub.value)) return false;
  return !GIT_LOG_LIKE.has(sub.value) || args.some((w) => PATCH_FLAG.test(w.value));
}

/** A folder a command walks: `tree` reads every file's content, `listing` prints every name. */
interface TreeRoot { word: ShellWord; kind: "tree" | "listing"; filters: TreeFilters }
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
