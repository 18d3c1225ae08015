// System information, lookups, checksums, number sequences and `test`: programs that only report, with the options that keep them so.
import type { ParsedArgs } from "./arg-spec.js";
import { familyReason } from "./command-families.js";
import type { ProgramRule } from "./program-rules.js";
import type { ShellWord } from "./shell-words.js";

/** A `seq` longer than this would run for minutes and flood the output: asked instead. */
const MAX_SEQ_COUNT = 1_000_000;

/** The report-only programs of the table. */
export const SYSTEM_RULES: ReadonlyArray<readonly [string, ProgramRule]> = [
  // Without arguments or with -s it prints the name; an argument or -F would set it, -f/-i/-A ask DNS.
  ["hostname", { spec: { short: "s", long: ["short", "version"], maxPositionals: 0 } }],
  ["nproc", { spec: { long: ["all", "ignore=", "version"], maxPositionals: 0 } }],
  ["id", { spec: { short: "ugGnrzaZ", long: ["user", "group", "groups", "name", "real", "zero", "context", "version"], maxPositionals: 1 } }],
  ["groups", { spec: { long: ["version"] } }],
  ["uptime", { spec: { short: "psV", long: ["pretty", "since", "version"], maxPositionals: 0 } }],
  ["arch", { spec: { long: ["version"], maxPositionals: 0 } }],
  ["tty", { spec: { short: "s", long: ["silent", "quiet", "version"], maxPositionals: 0 } }],
  ["locale", { spec: { short: "amkcv", long: ["all-locales", "charmaps", "keyword-name", "category-name", "verbose", "version"] } }],
  ["getconf", { spec: { short: "a", long: ["all"], maxPositionals: 2 } }],
  // -s and -c repeat the report (for ever, or N times): not listed.
  ["free", { spec: { short: "bkmghltvwV", long: ["bytes", "kilo", "mega", "giga", "tera", "peta", "kibi", "mebi", "gibi", "tebi", "pebi", "human", "si", "lohi", "total", "committed", "wide", "version"], maxPositionals: 0 } }],
  ["lscpu", { spec: { short: "abBcJxyV", shortOptional: "Cep", long: ["all", "online", "bytes", "caches[=]", "offline", "json", "extended[=]", "parse[=]", "hex", "physical", "output-all", "version"], maxPositionals: 0 } }],
  ["type", { spec: { short: "aftpP" }, printsArgs: true }],
  ["command", { check: (_args, words) => checkCommandLookup(words), printsArgs: true }],
  // Checksum programs have no option that writes, runs a program or waits, but `-c`.
  ...["sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "md5sum", "b2sum", "cksum", "sum"].map(
    (p): readonly [string, ProgramRule] => [p, { spec: { anyFlags: true }, check: (_args, words) => checkChecksum(p, words), readsContent: true }],
  ),
  ["seq", { check: (_args, words) => checkSeq(words) }],
];

/** `-c` opens the files its input lists: refused in every spelling (`-bc`, `--ch`) or wildcard that could be one (`*`, not `*.txt`). */
function checkChecksum(program: string, words: readonly ShellWord[]): string | null {
  for (const word of words) {
    const v = word.value;
    if (v === "--") break;
    const check = /^-[^-]*c/.test(v) || (v.length >= 3 && "--check".startsWith(v.split("=")[0] ?? v));
    if (check || word.dynamic === true || mayBeOptionsOnly(word)) {
      return `${program}: \`${v}\` may be -c/--check, which reads the files listed in its input without the gate seeing them`;
    }
  }
  return null;
}

function mayBeOptionsOnly(word: ShellWord): boolean {
  if (!word.glob) return false;
  if (word.value.includes("{")) return /^[{*?[-]/.test(word.value);
  return /^[*?[-]/.test(word.value) && !/[./=]/.test(word.value.replace(/\[[^\]]*\]/g, ""));
}

/** `command -v NAME` / `command -V NAME` only look names up; any other form runs NAME. */
function checkCommandLookup(words: readonly ShellWord[]): string | null {
  const first = words[0];
  const lookup = first !== undefined && first.dynamic !== true && !first.glob && /^-p?[vV]p?$/.test(first.value);
  if (!lookup) return `${familyReason("command")}; only \`command -v NAME\` and \`command -V NAME\` are read-only`;
  const option = words.slice(1).find((w) => w.value.startsWith("-") && w.value !== "--");
  return option === undefined ? null : `command: the option \`${option.value}\` after -v is not on the read-only list`;
}

const SEQ_NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** `seq [-w] [-s SEP] [-f FMT] [FIRST [INCREMENT]] LAST`, at most MAX_SEQ_COUNT numbers. */
function checkSeq(words: readonly ShellWord[]): string | null {
  const numbers: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const v = (words[i] as ShellWord).value;
    if ((words[i] as ShellWord).glob) return `seq: \`${v}\` is a wildcard`;
    if (SEQ_NUMBER.test(v)) numbers.push(Number(v));
    else if (v === "-s" || v === "-f" || v === "--separator" || v === "--format") i++;
    else if (!/^(-w|--equal-width|--separator=.*|--format=.*|-s.+|-f.+)$/.test(v)) return `seq: \`${v}\` is not on the read-only list`;
  }
  if (numbers.length < 1 || numbers.length > 3) return "seq takes one to three numbers";
  const [first, step, last] = numbers.length === 1 ? [1, 1, numbers[0] as number] : numbers.length === 2 ? [numbers[0] as number, 1, numbers[1] as number] : (numbers as [number, number, number]);
  const count = step === 0 ? Infinity : Math.floor((last - first) / step) + 1;
  return count > MAX_SEQ_COUNT ? `seq: ${count === Infinity ? "an endless" : "a very long"} sequence (more than ${MAX_SEQ_COUNT} numbers)` : null;
}

const TEST_UNARY = new Set(["-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-G", "-L", "-N", "-O", "-S", "-n", "-z", "-o"]);
const TEST_BINARY = new Set(["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef"]);

/**
 * `-v`, `-R` evaluate `a[$(cmd)]`: refused. A computed word passes only quoted where bash cannot take it for an operator (alone, after
 * a literal unary operator or `!`, beside a literal binary one).
 */
function checkTest(program: string, words: readonly ShellWord[]): string | null {
  let args = words;
  if (program === "[") {
    if (args[args.length - 1]?.value !== "]" || args[args.length - 1]?.dynamic === true) return "[: the test does not end with `]`";
    args = args.slice(0, -1);
  }
  const operator = args.find((w) => !w.dynamic && (w.value === "-v" || w.value === "-R"));
  if (operator !== undefined) return `${program}: \`${operator.value}\` evaluates an array subscript, which can run commands`;
  if (!args.some((w) => w.dynamic === true)) return null;
  if (args.some((w) => w.dynamic === true && w.glob)) return `${program}: an unquoted substitution could become several words or an operator`;
  const literal = (i: number): string | undefined => (args[i]?.dynamic === true ? undefined : args[i]?.value);
  const shapeOk =
    args.length === 1 ||
    (args.length === 2 && args[0]?.dynamic !== true && (literal(0) === "!" || TEST_UNARY.has(literal(0) ?? ""))) ||
    (args.length === 3 && TEST_BINARY.has(literal(1) ?? ""));
  return shapeOk ? null : `${program}: a computed word where bash could read it as an operator`;
}

/** The rule for `test` and `[`: operands are only compared, so computed ones are like printed ones. */
export function testRule(program: "test" | "["): ProgramRule {
  return { check: (_args: ParsedArgs, words) => checkTest(program, words), printsArgs: true };
}
