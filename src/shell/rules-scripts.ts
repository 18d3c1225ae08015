// Programs with a language of their own: find expressions, sed scripts (rules-sed.ts) and jq filters, each checked against a read-only subset.
import type { ParsedArgs } from "./arg-spec.js";
import { mayExpandToOption } from "./arg-spec.js";
import type { ShellWord } from "./shell-words.js";

export { checkSedScript, checkSedScripts } from "./rules-sed.js";

const FIND_LEADING = new Set(["-H", "-L", "-P"]);
const FIND_NO_ARG = new Set([
  "-print", "-print0", "-ls", "-prune", "-quit", "-depth", "-d", "-empty", "-true", "-false", "-follow", "-mount", "-xdev", "-noleaf",
  "-daystart", "-readable", "-writable", "-executable", "-nouser", "-nogroup", "-not", "-a", "-and", "-o", "-or", "(", ")", "!", ",",
  "-nowarn", "-warn", "-ignore_readdir_race", "-noignore_readdir_race",
]);
const FIND_ONE_ARG = new Set([
  "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type", "-xtype", "-size", "-mtime", "-mmin",
  "-atime", "-amin", "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-user", "-group", "-uid", "-gid", "-perm", "-links", "-inum",
  "-samefile", "-maxdepth", "-mindepth", "-used", "-fstype", "-lname", "-ilname", "-regextype", "-printf",
]);
const FIND_REFUSALS: Readonly<Record<string, string>> = {
  "-exec": "runs a command", "-execdir": "runs a command", "-ok": "runs a command", "-okdir": "runs a command", "-delete": "deletes files",
  "-fprint": "writes a file", "-fprint0": "writes a file", "-fprintf": "writes a file", "-fls": "writes a file",
};

/** Why this `find ...` is not read-only; only listed tests and actions pass. */
export function checkFind(words: readonly ShellWord[]): string | null {
  let i = 0;
  while (i < words.length && FIND_LEADING.has((words[i] as ShellWord).value)) i++;
  while (i < words.length && !isFindExpressionStart(words[i] as ShellWord)) {
    if (mayExpandToOption(words[i] as ShellWord)) return `find: the starting point \`${(words[i] as ShellWord).value}\` starts with a wildcard and could expand to an action`;
    i++;
  }
  for (; i < words.length; i++) {
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

function isFindExpressionStart(word: ShellWord): boolean {
  return word.value.startsWith("-") || ["(", ")", "!", ","].includes(word.value);
}

/**
 * jq names that reach outside the input: the environment (`env`, `$ENV`, however spaced or commented
 * between `$` and the name), where the program and its inputs live, and modules. Matched as whole
 * words anywhere in the filter, strings and comments included: jq has no other spelling of a name,
 * and a false match only means asking.
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
