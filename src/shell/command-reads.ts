// What one allowed program reads, judged before it runs: each argument by its role, the folders it walks, the git history it shows.
import { optionValues, type ParsedArgs } from "./arg-spec.js";
import { homeReason, physicalWords, resolveWord } from "./path-resolve.js";
import type { ProgramRule } from "./program-rules.js";
import type { ReadPlan } from "./read-plan.js";
import { treeRoots, type TreeRoot } from "./recursive-reads.js";
import { gitSubcommandAt } from "./rules-git.js";
import type { ShellWord } from "./shell-words.js";
import { judgeWord, literalPathReason, wordVariants, type WordScope } from "./word-reads.js";

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
