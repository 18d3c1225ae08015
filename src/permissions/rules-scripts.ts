// Programs with a language of their own: find expressions, sed scripts and jq filters, each checked against a read-only subset.
import type { ParsedArgs } from "./arg-spec.js";
import { mayExpandToOption } from "./arg-spec.js";
import type { ShellWord } from "./shell-words.js";

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

/** sed commands that only print or transform the stream. No w/W/r/R/e (files, programs) and no branches or D (loops). */
const SED_SIMPLE = new Set(["p", "P", "=", "l", "d", "n", "N", "h", "H", "g", "G", "x", "z", "F", "{", "}"]);
const SED_S_FLAGS = /^[gpiImM0-9]*$/;

/** Why the sed script(s) are not read-only: from -e values, or else the first positional. */
export function checkSedScripts(args: ParsedArgs): string | null {
  const fromFlags = args.flags.filter((f) => f.name === "-e" || f.name === "--expression").map((f) => f.value);
  const scripts = fromFlags.length > 0 ? fromFlags : [args.positionals[0]];
  for (const script of scripts) {
    if (script === undefined || script === null) return "sed without a script";
    if (script.glob) return "sed: the script is an unquoted wildcard";
    const reason = checkSedScript(script.value);
    if (reason !== null) return `sed: ${reason}`;
  }
  return null;
}

/** A small parser for the read-only subset of sed: addresses, then one listed command or s/// or y///. */
export function checkSedScript(script: string): string | null {
  let i = 0;
  const skip = (chars: string): void => {
    while (i < script.length && chars.includes(script[i] as string)) i++;
  };
  while (true) {
    skip(" \t\n;");
    if (i >= script.length) return null;
    i = skipAddress(script, i);
    if (i < 0) return "an address it cannot read";
    skip(" \t");
    if (script[i] === "!") i++;
    skip(" \t");
    const cmd = script[i];
    if (cmd === undefined) return "an address without a command";
    i++;
    if (cmd === "s" || cmd === "y") {
      i = skipDelimited(script, i, 2);
      if (i < 0) return `an unterminated ${cmd} command`;
      if (cmd === "s") {
        const flags = /^[^;\n}]*/.exec(script.slice(i))?.[0] ?? "";
        if (!SED_S_FLAGS.test(flags.trimEnd())) return `the s flags \`${flags.trim()}\` (w writes a file, e runs a command)`;
        i += flags.length;
      }
    } else if (cmd === "q" || cmd === "Q") {
      skip("0123456789");
    } else if (cmd === "#") {
      while (i < script.length && script[i] !== "\n") i++;
    } else if (!SED_SIMPLE.has(cmd)) {
      return `the command \`${cmd}\` is not on the read-only list (w/r/e touch files or run programs; b/t/D can loop)`;
    }
    skip(" \t");
    if (cmd !== "{" && i < script.length && !";\n}".includes(script[i] as string)) return `unexpected text after \`${cmd}\``;
  }
}

function skipAddress(script: string, start: number): number {
  let i = skipOneAddress(script, start);
  if (i < 0 || script[i] !== ",") return i;
  i++;
  if (script[i] === "+" || script[i] === "~") return skipDigits(script, i + 1);
  return skipOneAddress(script, i);
}

function skipOneAddress(script: string, i: number): number {
  const c = script[i];
  if (c === "$") return i + 1;
  if (c !== undefined && /[0-9]/.test(c)) {
    const end = skipDigits(script, i);
    return script[end] === "~" ? skipDigits(script, end + 1) : end;
  }
  if (c === "/" || c === "\\") {
    const open = c === "\\" ? i + 1 : i;
    const end = skipDelimited(script, open + 1, 1, script[open]);
    if (end < 0) return -1;
    let j = end;
    while (script[j] === "I" || script[j] === "M") j++;
    return j;
  }
  return i;
}

function skipDigits(script: string, i: number): number {
  while (i < script.length && /[0-9]/.test(script[i] as string)) i++;
  return i;
}

/** Skips `parts` delimiter-terminated parts (the delimiter is the character at `i` unless given); -1 when unterminated. */
function skipDelimited(script: string, i: number, parts: number, delimiter?: string): number {
  const delim = delimiter ?? script[i++];
  if (delim === undefined || delim === "\n" || delim === "\\") return -1;
  for (let seen = 0; seen < parts; i++) {
    if (i >= script.length) return -1;
    if (script[i] === "\\") i++;
    else if (script[i] === delim) seen++;
  }
  return i;
}

/** jq builtins that reach outside the input: the environment and modules. */
const JQ_REFUSED = /\$ENV\b|\benv\b|\bimport\b|\binclude\b|\bmodulemeta\b|\bget_search_list\b/;

/** Why the jq filter is not read-only: it may not read the environment (`env`, `$ENV`) or load modules. */
export function checkJqFilter(args: ParsedArgs): string | null {
  const filter = args.positionals[0];
  if (filter === undefined) return null;
  if (filter.glob) return "jq: the filter is an unquoted wildcard";
  const hit = JQ_REFUSED.exec(filter.value);
  return hit === null ? null : `jq: the filter uses \`${hit[0]}\`, which can print the environment or load modules`;
}
