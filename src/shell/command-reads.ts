// What one allowed program reads, judged before it runs: each argument by its role, the folders it walks, the git history it shows.
import { optionValues, type ParsedArgs } from "./arg-spec.js";
import { homeReason, physicalWords, resolveWord } from "./path-resolve.js";
import type { ProgramRule } from "./program-rules.js";
import type { PlannedRead } from "./read-plan.js";
import { treeRoots, type TreeRoot } from "./recursive-reads.js";
import { gitSubcommandAt } from "./rules-git.js";
import type { ShellWord } from "./shell-words.js";
import { judgeWord, literalPathReason, wordVariants, type WordScope } from "./word-reads.js";

/** The verdict on one simple command's reads, what the disk pass must verify, and whether it is git showing contents from history. */
interface CommandReads {
  reason: string | null;
  reads: PlannedRead[];
  gitContent: boolean;
}

/**
 * Judges what `program` (allowed by `rule`) reads, from every folder of `scope`: each argument (as content for programs
 * that print what they read and for file options' values, as names otherwise) and each folder it walks.
 */
export function commandReads(program: string, rule: ProgramRule, parsed: ParsedArgs, args: readonly ShellWord[], scope: WordScope): CommandReads {
  const reads: PlannedRead[] = [];
  const contentMode = parsed.flags.some((f) => f.name.length >= 3 && (rule.contentModeFlags ?? []).some((flag) => flag.startsWith(f.name)));
  const fileValues = optionValues(args, rule.fileOptions ?? [], rule.spec);
  // `--include='.en*'` chooses files by a wildcard, quoted or not: judged as a wildcard read.
  const globValues = optionValues(args, rule.globOptions ?? [], rule.spec).map((word) => ({ value: word.value.replace(/^!/, ""), glob: true }));
  const operands = new Set(parsed.positionals);
  // A program that only prints or compares its arguments (`echo .env`, `[ -f .env ]`) opens none of them;
  // bash still expands their braces, so the bound on that holds for them too.
  const opened = rule.printsArgs === true ? [] : args;
  for (const word of rule.printsArgs === true ? args : []) {
    const variants = wordVariants(word);
    if ("reason" in variants) return fail(`${program} ${variants.reason}`);
  }
  const judged = [
    ...opened.map((word) => [word, rule.readsContent === true || contentMode, operands.has(word)] as const),
    ...fileValues.map((word) => [word, true, true] as const),
    ...globValues.map((word) => [word, true, false] as const),
  ];
  for (const [word, content, opened] of judged) {
    const verdict = judgeWord(word, content ? "content" : "name", scope, program, opened);
    if (verdict.reason !== null) return fail(`${program} ${verdict.reason}`);
    reads.push(...verdict.reads);
  }
  for (const root of treeRoots(program, parsed, args)) {
    const verdict = judgeRoot(root, scope, program);
    if (verdict.reason !== null) return fail(verdict.reason);
    reads.push(...verdict.reads);
  }
  return { reason: null, reads, gitContent: program === "git" && gitShowsContent(args) };
}

function fail(reason: string): CommandReads {
  return { reason, reads: [], gitContent: false };
}

/** A walked folder: content readers never of `/`, a home folder or what holds one; listings never of `/`. */
function judgeRoot(root: TreeRoot, scope: WordScope, program: string): { reason: string | null; reads: PlannedRead[] } {
  const variants = wordVariants(root.word);
  if ("reason" in variants) return { reason: `${program} ${variants.reason}`, reads: [] };
  const reads: PlannedRead[] = [];
  for (const { value, glob } of variants.values) {
    // A wildcard root walks every match: judge the folder the wildcard starts in.
    const fixed = glob ? value.slice(0, Math.max(value.search(/[*?[]/), 0)).replace(/[^/]*$/, "") || "." : value;
    for (const path of resolveWord(fixed, scope.bases, scope.context.home)) {
      const why = root.kind === "tree" ? (homeReason(path, scope.context.home) ?? literalPathReason(path, scope.context)) : path === "/" ? "lists the whole file system from /" : null;
      if (why !== null) return { reason: `${program} ${why}${glob ? ` (through the wildcard \`${value}\`)` : ""}`, reads: [] };
    }
    const physical = glob ? [] : physicalWords(value, scope.bases, scope.context.home);
    for (const path of resolveWord(value, scope.bases, scope.context.home)) {
      if (path.startsWith("/")) reads.push({ path, glob, kind: root.kind, program, filters: root.filters, ...(physical.length > 0 ? { physical } : {}) });
    }
  }
  return { reason: null, reads };
}

/** git subcommands that print names, refs or counts only; the others may print file contents. */
const GIT_NAMES_ONLY = new Set([
  "status", "branch", "rev-parse", "remote", "ls-files", "tag", "check-ignore", "shortlog", "describe", "rev-list", "for-each-ref", "ls-tree", "count-objects",
  "merge-base", "name-rev", "show-ref", "symbolic-ref", "var", "version", "help", "worktree",
]);
const GIT_LOG_LIKE = new Set(["log", "reflog", "whatchanged"]);
const PATCH_FLAG = /^(--patch.*|--unified.*|--word-diff.*|--color-words.*|--function-context|--full-diff|--cc|--diff-merges.*|--remerge-diff|--text|--binary|-[LU].*|-[a-zA-Z0-9]*[puWcm][a-zA-Z0-9]*)$/;

/**
 * The revisions a git command names, for the history check: its words after the subcommand that are not options, before
 * `--`; `X:path` stands for X, a range for both ends, `^X` and `X^@` for X. Option values come along, harmlessly.
 */
export function gitObjectNames(args: readonly ShellWord[]): string[] {
  const sub = gitSubcommandAt(args);
  const names: string[] = [];
  for (const word of args.slice(sub + 1)) {
    if (word.value === "--") break;
    if (word.value.startsWith("-") || word.dynamic === true) continue;
    const revision = word.value.split(":")[0] ?? "";
    for (const end of revision.split(/\.{2,3}/)) {
      const name = end.replace(/^\^+/, "").replace(/\^(@|!|-[0-9]*)$/, "");
      if (name !== "") names.push(name);
    }
  }
  return names;
}

/** Whether this git command may print the content of files, from the work tree or from history. */
function gitShowsContent(args: readonly ShellWord[]): boolean {
  const sub = args[gitSubcommandAt(args)];
  if (sub === undefined || GIT_NAMES_ONLY.has(sub.value)) return false;
  if (!GIT_LOG_LIKE.has(sub.value)) return true;
  return args.some((w) => PATCH_FLAG.test(w.value));
}
