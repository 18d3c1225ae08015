// Programs that compare or lay out text and print the result: diff, cmp, comm, column, and the dumps xxd, od, hexdump, strings.
import type { ArgSpec } from "./arg-spec.js";
import type { ProgramRule } from "./program-rules.js";
import type { ShellWord } from "./shell-words.js";

/** GNU diff: only `-l` (pipes through `pr`) runs a program; `-X` reads a pattern file. `--from-file`/`--to-file` are operands. */
const DIFF: ArgSpec = {
  short: "qsceunytpTrNiEZbwBadv",
  shortValue: "CUWFxSID",
  long: [
    "normal", "brief", "report-identical-files", "context[=]", "unified[=]", "ed", "rcs", "side-by-side", "width=", "left-column", "suppress-common-lines",
    "show-c-function", "show-function-line=", "label=", "expand-tabs", "initial-tab", "tabsize=", "suppress-blank-empty", "recursive", "no-dereference", "new-file",
    "unidirectional-new-file", "ignore-file-name-case", "no-ignore-file-name-case", "exclude=", "starting-file=", "from-file=", "to-file=", "ignore-case",
    "ignore-tab-expansion", "ignore-trailing-space", "ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=", "text",
    "strip-trailing-cr", "ifdef=", "line-format=", "old-line-format=", "new-line-format=", "unchanged-line-format=", "old-group-format=", "new-group-format=",
    "unchanged-group-format=", "changed-group-format=", "minimal", "horizon-lines=", "speed-large-files", "color[=]", "palette=", "version",
  ],
  deny: {
    "-l": "pipes its output through the pr program", "--paginate": "pipes its output through the pr program",
    "-X": "reads patterns from a file", "--exclude-from": "reads patterns from a file",
  },
};

const CMP: ArgSpec = { short: "blsv", shortValue: "in", long: ["print-bytes", "ignore-initial=", "verbose", "bytes=", "quiet", "silent", "version"], maxPositionals: 4 };
const COMM: ArgSpec = { short: "123z", long: ["check-order", "nocheck-order", "output-delimiter=", "total", "zero-terminated", "version"], maxPositionals: 2 };

/** util-linux column: no option writes or runs anything (`-o` is the output separator). */
const COLUMN: ArgSpec = {
  short: "tdeLJxV",
  shortValue: "nONlEHRTWripcos",
  long: [
    "table", "table-name=", "table-order=", "table-columns=", "table-columns-limit=", "table-noextreme=", "table-noheadings", "table-header-repeat", "table-hide=",
    "table-right=", "table-truncate=", "table-wrap=", "keep-empty-lines", "json", "tree=", "tree-id=", "tree-parent=", "output-width=", "output-separator=",
    "separator=", "fillrows", "version",
  ],
};

const OD: ArgSpec = { short: "abcdfilosxv", shortValue: "AjNt", shortOptional: "Sw", long: ["address-radix=", "endian=", "skip-bytes=", "read-bytes=", "strings[=]", "format=", "output-duplicates", "width[=]", "traditional", "version"] };
/** `-f` reads a format file by name: left out. */
const HEXDUMP: ArgSpec = { short: "bcCdoxvV", shortValue: "ens", shortOptional: "L", long: ["one-byte-octal", "one-byte-char", "canonical", "two-bytes-decimal", "two-bytes-octal", "two-bytes-hex", "color[=]", "format=", "length=", "skip=", "no-squeezing", "version"] };
const STRINGS: ArgSpec = { short: "adfwoV", shortValue: "ntTeUs", long: ["all", "data", "print-file-name", "bytes=", "radix=", "include-all-whitespace", "target=", "encoding=", "unicode=", "output-separator=", "version"] };

/** binutils read options from `@FILE` arguments. */
function noResponseFiles(program: string, words: readonly ShellWord[]): string | null {
  const at = words.find((w) => w.value.startsWith("@"));
  return at === undefined ? null : `${program}: \`${at.value}\` reads options from a file`;
}

/** xxd options are whole words (`-len 8`, `-l8`); the words that take a value and the flags it knows, nothing else. */
const XXD_VALUE = /^-(c|cols|g|groupsize|l|len|n|name|o|offset|s|seek)$/;
const XXD_ATTACHED = /^-[cglos][-+]?(0x[0-9a-fA-F]+|[0-9]+)$/;
const XXD_FLAG = /^-(a|autoskip|b|bits|C|capitalize|E|EBCDIC|e|h|help|i|include|p|ps|postscript|plain|u|upper|v|version|d)$/;

/** `xxd [options] [infile]`: a second file name is where xxd writes; `-r` and anything not listed are refused. */
function checkXxd(words: readonly ShellWord[]): string | null {
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i] as ShellWord;
    if (word.glob) return `xxd: \`${word.value}\` is a wildcard (a second file would be written)`;
    if (!word.value.startsWith("-") || word.value === "-") break;
    if (XXD_VALUE.test(word.value)) i++;
    else if (!XXD_ATTACHED.test(word.value) && !XXD_FLAG.test(word.value)) return `xxd: \`${word.value}\` is not on the read-only list (-r writes binary, a second file name is written)`;
  }
  return words.length - i > 1 ? "xxd: a second file name is the output file xxd writes" : null;
}

/** The comparison and layout rules of the table. */
export const COMPARE_RULES: ReadonlyArray<readonly [string, ProgramRule]> = [
  ["diff", { spec: DIFF, readsContent: true, fileOptions: ["--from-file", "--to-file"] }],
  ["cmp", { spec: CMP, readsContent: true }],
  ["comm", { spec: COMM, readsContent: true }],
  ["column", { spec: COLUMN, readsContent: true }],
  ["xxd", { check: (_args, words) => checkXxd(words), readsContent: true }],
  ["od", { spec: OD, readsContent: true }],
  ["hexdump", { spec: HEXDUMP, readsContent: true }],
  ["strings", { spec: STRINGS, check: (_args, words) => noResponseFiles("strings", words), readsContent: true }],
];
