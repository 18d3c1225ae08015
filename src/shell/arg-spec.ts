// Deny-by-default option parsing for the read-only programs: only the flags a spec lists pass.
import type { ShellWord } from "./shell-words.js";

/**
 * The options a program (or git subcommand) may take staying read-only: letters bare (`#`: digits), with a value (`-n5`, `-n 5`) or an
 * optional one (`-M50%`); long names `name`, `name=`, `name[=]`, pairs; exact names only. `anyFlags` for audited programs; `deny` first.
 */
export interface ArgSpec {
  short?: string;
  shortValue?: string;
  shortOptional?: string;
  long?: readonly string[];
  longPair?: readonly string[];
  anyFlags?: boolean;
  deny?: Readonly<Record<string, string>>;
  maxPositionals?: number;
}

/** A flag as given (`-n`, `--lines`) with its value, if any; the arguments of a command as its spec reads them. */
export interface ParsedFlag { name: string; value: ShellWord | null }
export interface ParsedArgs { flags: ParsedFlag[]; positionals: ShellWord[] }
type ArgResult = { ok: true; args: ParsedArgs } | { ok: false; reason: string };
type LongKind = "flag" | "value" | "optional" | "pair";

/** True when the shell could expand this word into something starting with `-`. */
export function mayExpandToOption(word: ShellWord): boolean {
  return word.glob && /^[*?[{]/.test(word.value);
}

/** Parses `words` (the arguments after the program name) against `spec`; the reason starts with `program:`. */
export function parseArgs(program: string, words: readonly ShellWord[], spec: ArgSpec): ArgResult {
  const args: ParsedArgs = { flags: [], positionals: [] };
  const fail = (reason: string): ArgResult => ({ ok: false, reason: `${program}: ${reason}` });
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as ShellWord;
    const v = word.value;
    if (v === "--") {
      args.positionals.push(...words.slice(i + 1));
      break;
    }
    if (!v.startsWith("-") || v === "-") {
      if (mayExpandToOption(word) && (!spec.anyFlags || spec.deny !== undefined)) return fail(`\`${v}\` starts with a wildcard and could expand to an option; put \`--\` before it or write \`./${v}\``);
      args.positionals.push(word);
      continue;
    }
    if (word.glob) return fail(`option \`${v}\` contains a wildcard`);
    const step = v.startsWith("--") ? parseLong(word, words[i + 1], words[i + 2], spec, args) : parseShort(word, words[i + 1], spec, args);
    if (typeof step === "string") return fail(step);
    i += step;
  }
  const max = spec.maxPositionals;
  if (max !== undefined && args.positionals.length > max) return fail(max === 0 ? "takes no arguments here" : `at most ${max} argument(s) here (a further one may be an output file)`);
  if (max !== undefined && args.positionals.some((w) => w.glob)) return fail("a wildcard here could expand to several arguments");
  return { ok: true, args };
}

/** How many following words the flag consumed, or why it is refused. */
function parseLong(word: ShellWord, next: ShellWord | undefined, after: ShellWord | undefined, spec: ArgSpec, args: ParsedArgs): number | string {
  const eq = word.value.indexOf("=");
  const name = eq === -1 ? word.value : word.value.slice(0, eq);
  const attached = eq === -1 ? null : { value: word.value.slice(eq + 1), glob: false };
  const denied = deniedLong(name, spec);
  if (denied !== undefined) return denied;
  const kind = spec.anyFlags ? "optional" : longKind(name.slice(2), spec);
  if (kind === undefined) return `\`${name}\` is not on the read-only list`;
  if (kind === "flag" && attached !== null) return `\`${name}\` takes no value`;
  if (kind === "pair") {
    if (next === undefined || after === undefined) return `\`${name}\` needs two values`;
    args.flags.push({ name, value: next }, { name, value: after });
    return 2;
  }
  if (kind === "value" && attached === null) return takeNext(name, next, args);
  args.flags.push({ name, value: attached });
  return 0;
}

function takeNext(name: string, next: ShellWord | undefined, args: ParsedArgs): number | string {
  if (next === undefined) return `\`${name}\` needs a value`;
  if (mayExpandToOption(next)) return `the value of \`${name}\` starts with a wildcard`;
  args.flags.push({ name, value: next });
  return 1;
}

/** GNU getopt accepts any unambiguous prefix, so `--comp` must be refused like `--compile`. */
function deniedLong(name: string, spec: ArgSpec): string | undefined {
  // getopt_long takes an exact match over an abbreviation: `--file` is `--file`, not `--files-from`.
  const exact = !spec.anyFlags && longKind(name.slice(2), spec) !== undefined;
  for (const [flag, why] of Object.entries(spec.deny ?? {})) {
    if (flag === name || (!exact && flag.startsWith("--") && name.length > 3 && flag.startsWith(name))) return `\`${flag}\` ${why}`;
  }
  return undefined;
}

function longKind(name: string, spec: ArgSpec): LongKind | undefined {
  if (spec.longPair?.includes(name)) return "pair";
  for (const entry of spec.long ?? []) {
    if (entry === name) return "flag";
    if (entry === `${name}=`) return "value";
    if (entry === `${name}[=]`) return "optional";
  }
  return undefined;
}

function parseShort(word: ShellWord, next: ShellWord | undefined, spec: ArgSpec, args: ParsedArgs): number | string {
  const letters = word.value.slice(1);
  for (let j = 0; j < letters.length; j++) {
    const c = letters[j] as string;
    const name = `-${c}`;
    const denied = spec.deny?.[name];
    if (denied !== undefined) return `\`${name}\` ${denied}`;
    if (spec.anyFlags) {
      args.flags.push({ name, value: null });
      continue;
    }
    const rest = letters.slice(j + 1);
    if (spec.shortOptional?.includes(c) || (spec.shortValue?.includes(c) && rest !== "")) {
      args.flags.push({ name, value: rest === "" ? null : { value: rest, glob: false } });
      return 0;
    }
    if (spec.shortValue?.includes(c)) return takeNext(name, next, args);
    const allowed = (spec.short ?? "").includes(c) || (/[0-9]/.test(c) && (spec.short ?? "").includes("#"));
    if (!allowed) return `\`${name}\` is not on the read-only list`;
    args.flags.push({ name, value: null });
  }
  return 0;
}

/** The values of the options in `names` (`-fF`, `-f F`, `--file=F`, `--file F`, or a prefix getopt takes for one), erring towards more. */
export function optionValues(words: readonly ShellWord[], names: readonly string[], spec?: ArgSpec): ShellWord[] {
  const found: ShellWord[] = [];
  if (names.length === 0) return found;
  const longs = names.filter((n) => n.startsWith("--"));
  // An exact option name of the program is never an abbreviation of another (`--exclude` is not `--exclude-from`).
  const exact = new Set((spec?.long ?? []).map((l) => `--${l.replace(/\[?=\]?$/, "")}`));
  const shorts = names.filter((n) => /^-[^-]$/.test(n)).map((n) => n[1] as string);
  const attached = (word: ShellWord, value: string): ShellWord => ({ ...word, value });
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as ShellWord;
    const next = words[i + 1];
    const v = word.value;
    if (v === "--") break;
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const name = eq === -1 ? v : v.slice(0, eq);
      if (name.length < 3 || (exact.has(name) && !longs.includes(name)) || !longs.some((long) => long.startsWith(name))) continue;
      if (eq !== -1) found.push(attached(word, v.slice(eq + 1)));
      else if (next !== undefined) found.push(next);
    } else if (v.startsWith("-") && v.length > 1) {
      const at = [...v.slice(1)].findIndex((c) => shorts.includes(c));
      if (at === -1) continue;
      const rest = v.slice(at + 2);
      if (rest !== "") found.push(attached(word, rest));
      else if (next !== undefined) found.push(next);
    }
  }
  return found;
}
