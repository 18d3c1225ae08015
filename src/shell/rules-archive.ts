// Archives read without extracting: `tar -t`, `unzip -l/-p`, `zipinfo`, and compressors that write to stdout (`zcat`, `gzip -dc`, `xzcat`, `bzcat`) or only list or test.
import { parseArgs, type ArgSpec, type ParsedArgs } from "./arg-spec.js";
import type { ProgramRule } from "./program-rules.js";
import type { ShellWord } from "./shell-words.js";

/** tar options that change only what the listing shows: nothing that runs a program, reads a list or writes. */
const TAR: ArgSpec = {
  short: "tvzjJ",
  shortValue: "f",
  long: [
    "list", "file=", "verbose", "gzip", "gunzip", "ungzip", "bzip2", "xz", "lzma", "lzip", "lzop", "zstd", "wildcards", "no-wildcards", "anchored", "no-anchored",
    "ignore-case", "no-ignore-case", "wildcards-match-slash", "no-wildcards-match-slash", "exclude=", "numeric-owner", "utc", "full-time", "quoting-style=",
    "force-local", "occurrence[=]", "totals", "version",
  ],
  deny: {
    "--to-command": "runs a program for every member", "--use-compress-program": "runs a program", "-I": "runs a program",
    "--checkpoint-action": "can run a program", "--info-script": "runs a program", "--new-volume-script": "runs a program", "-F": "runs a program",
    "--rsh-command": "runs a program", "--rmt-command": "runs a program", "-T": "reads names from a file",
  },
};

/** `tar -t... -f FILE`: a listing of an archive on this machine (`host:file` would go through rsh). */
function checkTar(words: readonly ShellWord[]): string | null {
  const first = words[0];
  let args = words;
  // The old form `tar tzf x.tgz`: letters without a dash, a value letter (f) only last so values come in order.
  if (first !== undefined && !first.value.startsWith("-")) {
    if (first.glob || first.dynamic === true || !/^[tvzjJ]*f?$/.test(first.value) || first.value === "") return `tar: \`${first.value}\` is not a listing (only t, v, z, j, J and a last f)`;
    args = [{ value: `-${first.value}`, glob: false }, ...words.slice(1)];
  }
  const parsed = parseArgs("tar", args, TAR);
  if (!parsed.ok) return parsed.reason;
  const names = parsed.args.flags.map((f) => f.name);
  if (!names.includes("-t") && !names.includes("--list")) return "tar without -t (--list) extracts or creates; only listing is read-only";
  if (!names.includes("-f") && !names.includes("--file")) return "tar without -f reads a default archive (TAPE or a tape device)";
  const local = names.includes("--force-local");
  const archive = parsed.args.flags.find((f) => (f.name === "-f" || f.name === "--file") && f.value !== null && (f.value.glob || (!local && f.value.value.includes(":"))));
  return archive === undefined ? null : `tar: the archive \`${archive.value?.value}\` could name another host (host:file); add --force-local`;
}

const UNZIP: ArgSpec = { short: "lvtpcqzCx", deny: { "-d": "extracts into a folder", "-o": "overwrites files" } };
const UNZIP_MODES = ["-l", "-v", "-t", "-p", "-c", "-z"];
const ZIPINFO: ArgSpec = { short: "12smlvhtTzCx" };

/** `unzip -l/-v/-t/-p/-c/-z` list, test or print; `unzip -Z` is zipinfo. Without one of them unzip extracts. */
function checkUnzip(words: readonly ShellWord[]): string | null {
  const zipinfo = words[0]?.value === "-Z" && !words[0].glob;
  const parsed = zipinfo ? parseArgs("unzip -Z", words.slice(1), ZIPINFO) : parseArgs("unzip", words, UNZIP);
  if (!parsed.ok) return parsed.reason;
  return zipinfo || parsed.args.flags.some((f) => UNZIP_MODES.includes(f.name)) ? null : "unzip without -l, -v, -t, -p, -c or -z extracts files";
}

/** -r walks folders (and with -f follows links into them); -S names the files written: refused in every mode. */
const COMPRESSOR_DENY: Readonly<Record<string, string>> = {
  "-r": "walks folders recursively (and with -f follows links), reading everything under them",
  "--recursive": "walks folders recursively (and with -f follows links), reading everything under them",
  "-S": "names the files it writes or deletes (--suffix)",
  "--suffix": "names the files it writes or deletes",
};
const GZIP: ArgSpec = { short: "cdfklnNqtv123456789", long: ["stdout", "to-stdout", "decompress", "uncompress", "force", "keep", "list", "no-name", "name", "quiet", "test", "verbose", "fast", "best", "rsyncable", "synchronous", "version"], deny: COMPRESSOR_DENY };
const XZ: ArgSpec = { short: "zdtlkfcqvVe0123456789", shortValue: "TFCM", long: ["compress", "decompress", "uncompress", "test", "list", "keep", "force", "stdout", "to-stdout", "quiet", "verbose", "threads=", "format=", "check=", "single-stream", "no-sparse", "memlimit=", "memory=", "robot", "extreme", "fast", "best", "ignore-check", "version", "info-memory"], deny: COMPRESSOR_DENY };
const BZIP2: ArgSpec = { short: "dzkftcqvsV123456789", long: ["decompress", "compress", "keep", "force", "test", "stdout", "quiet", "verbose", "small", "fast", "best", "version"], deny: COMPRESSOR_DENY };
/** For all three (each spec admits only its own spellings); xz and bzip2 obey the last mode given: -t then -z compresses. */
const TO_STDOUT = ["-c", "--stdout", "--to-stdout"];
const LIST_OR_TEST = ["-l", "--list", "-t", "--test"];
const MODES = ["-z", "--compress", "-d", "--decompress", "--uncompress"];

/** Read-only writing to stdout (a *cat, or -c), or only listing or testing: -l/-t with no mode anywhere or implied (gunzip), no -f. */
function compressorRule(program: string, spec: ArgSpec, alwaysStdout: boolean, impliesMode = false): ProgramRule {
  const check = (args: ParsedArgs): string | null => {
    const names = args.flags.map((f) => f.name);
    if (alwaysStdout || names.some((n) => TO_STDOUT.includes(n))) return null;
    if (!names.some((n) => LIST_OR_TEST.includes(n))) return `${program} without -c (or -l, -t) writes files next to its input`;
    const mode = names.find((n) => MODES.includes(n));
    if (mode !== undefined) return `${program}: \`${mode}\` with -l or -t: the last mode given wins, so it may compress or decompress into files`;
    if (impliesMode) return `${program} decompresses into files unless -c is given (its -l or -t is not judged apart from its implied -d)`;
    if (names.includes("-f") || names.includes("--force")) return `${program}: -f without -c may write or overwrite files`;
    return null;
  };
  return { spec, readsContent: true, check };
}

/** Each family: the compressor, the decompressor (implying -d) and the *cat (always to stdout), with their options. */
const COMPRESSORS = [["gzip", "gunzip", "zcat", GZIP], ["xz", "unxz", "xzcat", XZ], ["bzip2", "bunzip2", "bzcat", BZIP2]] as const;

/** gzip and its kin: with -r they decompress (or, with -f, copy) every file under a folder to stdout; -f follows links. */
export const DECOMPRESSORS: readonly string[] = COMPRESSORS.flatMap(([plain, un, cat]) => [plain, un, cat]);

/** The archive and decompression rules of the table. */
export const ARCHIVE_RULES: ReadonlyArray<readonly [string, ProgramRule]> = [
  ["tar", { check: (_args, words) => checkTar(words) }],
  ["unzip", { check: (_args, words) => checkUnzip(words), readsContent: true }],
  ["zipinfo", { spec: ZIPINFO }],
  ...COMPRESSORS.flatMap(([plain, un, cat, spec]) => [
    [plain, compressorRule(plain, spec, false)] as const,
    [un, compressorRule(un, spec, false, true)] as const,
    [cat, compressorRule(cat, spec, true)] as const,
  ]),
];
