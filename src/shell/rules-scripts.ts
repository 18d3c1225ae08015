// find expressions and jq filters, each checked against a read-only subset (sed scripts: rules-sed.ts; awk: rules-awk.ts).
import { mayExpandToOption, type ParsedArgs } from "./arg-spec.js";
import type { ShellWord } from "./shell-words.js";

const FIND_NO_ARG = new Set([
  "-print", "-print0", "-ls", "-prune", "-quit", "-depth", "-d", "-empty", "-true", "-false", "-follow", "-mount", "-xdev", "-noleaf", "-daystart", "-readable",
  "-writable", "-executable", "-nouser", "-nogroup", "-not", "-a", "-and", "-o", "-or", "(", ")", "!", ",", "-nowarn", "-warn", "-ignore_readdir_race",
  "-noignore_readdir_race",
]);
const FIND_ONE_ARG = new Set([
  "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime",
  "-cmin", "-newer", "-anewer", "-cnewer", "-user", "-group", "-uid", "-gid", "-perm", "-links", "-inum", "-samefile", "-maxdepth", "-mindepth", "-used", "-fstype",
  "-lname", "-ilname", "-regextype", "-printf",
]);
const FIND_REFUSALS: Readonly<Record<string, string>> = {
  "-exec": "runs a command", "-execdir": "runs a command", "-ok": "runs a command", "-okdir": "runs a command", "-delete": "deletes files",
  "-fprint": "writes a file", "-fprint0": "writes a file", "-fprintf": "writes a file", "-fls": "writes a file",
};

/** find's starting points (after -H/-L/-P, before the first test or action), and where its expression starts. */
export function findStartingPoints(words: readonly ShellWord[]): { points: ShellWord[]; end: number } {
  let start = 0;
  while (start < words.length && ["-H", "-L", "-P"].includes((words[start] as ShellWord).value)) start++;
  let end = start;
  while (end < words.length && !/^-|^[()!,]$/.test((words[end] as ShellWord).value)) end++;
  return { points: words.slice(start, end), end };
}

/** Why this `find ...` is not read-only; only listed tests and actions pass. */
export function checkFind(words: readonly ShellWord[]): string | null {
  const { points, end } = findStartingPoints(words);
  const wild = points.find(mayExpandToOption);
  if (wild !== undefined) return `find: the starting point \`${wild.value}\` starts with a wildcard and could expand to an action`;
  for (let i = end; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (word.glob) return `find: \`${word.value}\` is an unquoted wildcard the shell would expand; quote it`;
    const v = word.value;
    if (Object.hasOwn(FIND_REFUSALS, v)) return `find ${v} ${FIND_REFUSALS[v]}`;
    if (FIND_NO_ARG.has(v)) continue;
    if (FIND_ONE_ARG.has(v) || /^-newer[aBcmt][aBcmt]$/.test(v)) {
      const value = words[i + 1];
      if (value === undefined) return `find: ${v} needs a value`;
      if (value.glob) return `find: the value of ${v} is an unquoted wildcard the shell would expand; quote it`;
      i++;
      continue;
    }
    return `find: \`${v}\` is not on the read-only list`;
  }
  return null;
}

/**
 * jq names that reach outside the input: the environment (`env`, `$ENV`, however spaced), file locations, modules.
 * Matched as whole words anywhere, strings and comments included: a false match only means asking.
 */
const JQ_REFUSED = /\b(env|ENV|__loc__|input_filename|get_search_list|get_prog_origin|get_jq_origin|import|include|modulemeta)\b/i;

/** Why the jq filter is not read-only: it may not read the environment or load modules. */
export function checkJqFilter(args: ParsedArgs): string | null {
  const filter = args.positionals[0];
  if (filter === undefined) return null;
  if (filter.glob || filter.dynamic === true) return "jq: the filter is an unquoted wildcard or computed";
  const hit = JQ_REFUSED.exec(filter.value);
  return hit === null ? null : `jq: the filter uses \`${hit[0]}\`, which can print the environment, file locations or load modules`;
}
