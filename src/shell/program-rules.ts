// The read-only programs and the arguments each may take: a data table, deny by default; with the checks of find and jq.
import { mayExpandToOption, type ArgSpec, type ParsedArgs } from "./arg-spec.js";
import { VERSION_RULES } from "./command-families.js";
import { ARCHIVE_RULES } from "./rules-archive.js";
import { AWK_RULES } from "./rules-awk.js";
import { COMPARE_RULES } from "./rules-compare.js";
import { checkGit } from "./rules-git.js";
import { checkSedScripts } from "./rules-sed.js";
import { SYSTEM_RULES, testRule } from "./rules-system.js";
import { sandboxSupport } from "./child-sandbox.js";
import type { ShellWord } from "./shell-words.js";

/**
 * How a program is judged (one not in the table never is safe): its options and a `check`; `readsContent` (wildcards checked against secret
 * names), `printsArgs` (only printed or compared: computed ones harmless); options naming files it prints or globs it walks; content-mode flags.
 */
export interface ProgramRule {
  spec?: ArgSpec;
  check?: (args: ParsedArgs, words: readonly ShellWord[]) => string | null;
  readsContent?: boolean;
  printsArgs?: boolean;
  fileOptions?: readonly string[];
  globOptions?: readonly string[];
  contentModeFlags?: readonly string[];
}

/** Any flag passes: audited to have no flag that writes, runs a program or blocks. */
const ANY_FLAGS: ArgSpec = { anyFlags: true };
const NO_ARGS: ArgSpec = { anyFlags: true, maxPositionals: 0 };
const HEAD_TAIL: ArgSpec = {
  short: "qvz#", shortValue: "nc", long: ["quiet", "silent", "verbose", "zero-terminated", "lines=", "bytes="],
  deny: { "-f": "follows the file and never ends", "-F": "follows the file and never ends", "--follow": "never ends", "--retry": "keeps waiting for the file", "--pid": "waits on a process", "-s": "only matters when following" },
};
const GREP: ArgSpec = {
  short: "EFGPiyvwxcLlonhHqsrRIabZzUT#",
  shortValue: "ABCmefdD",
  long: [
    "extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "ignore-case", "no-ignore-case", "invert-match", "word-regexp", "line-regexp", "count",
    "files-with-matches", "files-without-match", "only-matching", "quiet", "silent", "no-messages", "byte-offset", "line-number", "with-filename", "no-filename",
    "null", "null-data", "text", "recursive", "dereference-recursive", "initial-tab", "line-buffered", "color[=]", "colour[=]", "regexp=", "file=", "max-count=",
    "after-context=", "before-context=", "context=", "include=", "exclude=", "exclude-dir=", "exclude-from=", "binary-files=", "label=", "devices=", "directories=",
  ],
};
const RIPGREP: ArgSpec = {
  short: "iSsFwxvcloLnNHIqbpa0UP",
  shortValue: "ABCmegtTMjdrfE",
  long: [
    "files", "files-with-matches", "files-without-match", "count", "count-matches", "json", "vimgrep", "line-number", "no-line-number", "heading", "no-heading",
    "column", "no-column", "smart-case", "case-sensitive", "ignore-case", "fixed-strings", "word-regexp", "line-regexp", "invert-match", "only-matching",
    "multiline", "multiline-dotall", "stats", "trim", "no-messages", "null", "with-filename", "no-filename", "follow", "type-list", "passthru", "pcre2", "crlf",
    "byte-offset", "pretty", "text", "quiet", "glob-case-insensitive", "type=", "type-not=", "glob=", "iglob=", "regexp=", "file=", "max-count=", "max-depth=",
    "context=", "after-context=", "before-context=", "sort=", "sortr=", "max-filesize=", "replace=", "encoding=", "threads=", "color=", "colors=", "max-columns=",
    "path-separator=", "context-separator=", "engine=",
  ],
  deny: { "--pre": "runs a preprocessor program on every file", "-z": "runs decompression programs", "--search-zip": "runs decompression programs", "--hostname-bin": "runs a program" },
};
const SORT: ArgSpec = {
  short: "bdfgiMhnRrVcCmsuz",
  shortValue: "ktS",
  long: [
    "ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort", "ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort",
    "random-sort", "reverse", "version-sort", "merge", "stable", "unique", "zero-terminated", "debug", "check[=]", "key=", "field-separator=", "buffer-size=",
    "parallel=", "sort=",
  ],
  deny: { "-o": "writes its output to a file", "--output": "writes its output to a file", "--compress-program": "runs a helper program", "-T": "writes temporary files", "--temporary-directory": "writes temporary files" },
};
const SED: ArgSpec = {
  short: "nErsuz", shortValue: "el", long: ["quiet", "silent", "regexp-extended", "separate", "unbuffered", "null-data", "zero-terminated", "posix", "sandbox", "debug", "expression=", "line-length="],
  deny: { "-i": "edits files in place", "--in-place": "edits files in place", "-f": "reads its script from a file", "--file": "reads its script from a file" },
};
const JQ: ArgSpec = {
  short: "nrjacsSeCMR",
  long: [
    "null-input", "raw-input", "slurp", "compact-output", "raw-output", "raw-output0", "join-output", "ascii-output", "sort-keys", "color-output",
    "monochrome-output", "tab", "indent=", "exit-status", "seq", "stream", "stream-errors", "args", "jsonargs",
  ],
  longPair: ["arg", "argjson", "slurpfile", "rawfile"],
  deny: { "-f": "reads its program from a file", "--from-file": "reads its program from a file", "-L": "loads modules", "--library-path": "loads modules" },
};

/** Programs of the audited kind sharing one rule: arguments that are names, printed words, or files whose content is printed. */
const SHARED_RULES: ReadonlyArray<readonly [programs: string, rule: ProgramRule]> = [
  ["ls tr stat df realpath readlink", { spec: ANY_FLAGS }],
  ["echo which true false basename dirname", { spec: ANY_FLAGS, printsArgs: true }],
  ["cut nl tac", { spec: ANY_FLAGS, readsContent: true }],
  ["whoami uname", { spec: NO_ARGS }],
];

/** The table. Keys are bare program names: a path such as `./ls` or `/bin/ls` is never looked up. */
export const PROGRAM_RULES: ReadonlyMap<string, ProgramRule> = new Map<string, ProgramRule>([
  ...SHARED_RULES.flatMap(([programs, rule]) => programs.split(" ").map((program) => [program, rule] as const)),
  ["cat", { spec: { short: "AbeEnstTuv", long: ["show-all", "number-nonblank", "show-ends", "number", "squeeze-blank", "show-tabs", "show-nonprinting"] }, readsContent: true }],
  ["head", { spec: HEAD_TAIL, readsContent: true }],
  ["tail", { spec: HEAD_TAIL, check: checkTail, readsContent: true }],
  ["wc", { spec: ANY_FLAGS, fileOptions: ["--files0-from"] }],
  ["pwd", { spec: { short: "LP", maxPositionals: 0 } }],
  ["date", { spec: { short: "uR", shortValue: "dfr", shortOptional: "I", long: ["utc", "universal", "rfc-email", "debug", "date=", "file=", "reference=", "iso-8601[=]", "rfc-3339="] }, check: checkDate, fileOptions: ["-f", "--file"] }],
  ["file", { spec: { anyFlags: true, deny: { "-C": "compiles a magic file (writes)", "--compile": "compiles a magic file (writes)" } }, fileOptions: ["-f", "--files-from", "-m", "--magic-file"] }],
  ["du", { spec: ANY_FLAGS, fileOptions: ["--files0-from", "-X", "--exclude-from"] }],
  ["uniq", { spec: { short: "cdDiuz", shortValue: "fsw", long: ["count", "repeated", "unique", "ignore-case", "zero-terminated", "all-repeated[=]", "group[=]", "skip-fields=", "skip-chars=", "check-chars="], maxPositionals: 1 }, readsContent: true }],
  ["tree", { spec: { anyFlags: true, deny: { "-o": "writes its output to a file", "-R": "writes files in every folder" } }, fileOptions: ["--infofile", "--gitfile"], contentModeFlags: ["--fromfile", "--fromtabfile"] }],
  ["cd", { spec: { short: "LPe@", maxPositionals: 1 }, readsContent: true }],
  ["grep", { spec: GREP, readsContent: true, fileOptions: ["-f", "--file", "--exclude-from"], globOptions: ["--include"] }],
  ["rg", { spec: RIPGREP, readsContent: true, fileOptions: ["-f", "--file", "--ignore-file"], globOptions: ["-g", "--glob", "--iglob"] }],
  ["sort", { spec: SORT, readsContent: true, fileOptions: ["--files0-from"] }],
  ["sed", { spec: SED, check: checkSed, readsContent: true }],
  ["jq", { spec: JQ, check: checkJqFilter, readsContent: true }],
  ["find", { check: (_args, words) => checkFind(words) }],
  ["git", { check: (_args, words) => checkGit(words), readsContent: true }],
  // Computed arguments are harmless where they are only printed: not as printf's format or before it (`-v NAME` assigns).
  ["printf", { spec: { anyFlags: true, deny: { "-v": "assigns a shell variable (PATH, for one)" } }, printsArgs: true, check: checkPrintf }],
  ["test", testRule("test")],
  ["[", testRule("[")],
  ...ARCHIVE_RULES,
  ...AWK_RULES,
  ...COMPARE_RULES,
  ...SYSTEM_RULES,
  ...VERSION_RULES,
]);

/** sed runs unasked only under `--sandbox` (added when it runs); its script is also parsed, as a second line. */
function checkSed(args: ParsedArgs): string | null {
  if (!sandboxSupport().sed) return "sed: this sed has no --sandbox mode, so a script could run programs or write files";
  return checkSedScripts(args);
}

/** GNU tail still reads the obsolete `+5f` form, which follows the file forever. */
function checkTail(args: ParsedArgs): string | null {
  const bad = args.positionals.find((w) => w.value.startsWith("+"));
  return bad === undefined ? null : `tail: \`${bad.value}\` is the obsolete option form (it can follow forever); use -n +N`;
}

function checkDate(args: ParsedArgs): string | null {
  const bad = args.positionals.find((w) => !w.value.startsWith("+"));
  return bad === undefined ? null : `date: \`${bad.value}\` would set the clock; only +FORMAT arguments are read-only`;
}

function checkPrintf(_args: ParsedArgs, words: readonly ShellWord[]): string | null {
  const format = words[0]?.value === "--" ? words[1] : words[0];
  const early = words.slice(0, words.indexOf(format as ShellWord) + 1).find((w) => w.dynamic === true);
  return early === undefined ? null : "printf: a computed format or option could be `-v NAME` (assigning a shell variable)";
}

const FIND_NO_ARG = new Set(
  ("-print -print0 -ls -prune -quit -depth -d -empty -true -false -follow -mount -xdev -noleaf -daystart -readable -writable -executable -nouser " +
    "-nogroup -not -a -and -o -or ( ) ! , -nowarn -warn -ignore_readdir_race -noignore_readdir_race").split(" "),
);
const FIND_ONE_ARG = new Set(
  ("-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size -mtime -mmin -atime -amin -ctime -cmin -newer -anewer " +
    "-cnewer -user -group -uid -gid -perm -links -inum -samefile -maxdepth -mindepth -used -fstype -lname -ilname -regextype -printf").split(" "),
);
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

function checkFind(words: readonly ShellWord[]): string | null {
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

/** jq names reaching outside the input (the environment however spaced, file locations, modules); matched anywhere, strings too. */
const JQ_REFUSED = /\b(env|ENV|__loc__|input_filename|get_search_list|get_prog_origin|get_jq_origin|import|include|modulemeta)\b/i;

function checkJqFilter(args: ParsedArgs): string | null {
  const filter = args.positionals[0];
  if (filter === undefined) return null;
  if (filter.glob || filter.dynamic === true) return "jq: the filter is an unquoted wildcard or computed";
  const hit = JQ_REFUSED.exec(filter.value);
  return hit === null ? null : `jq: the filter uses \`${hit[0]}\`, which can print the environment, file locations or load modules`;
}
