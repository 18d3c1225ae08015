// Archives read without extracting: `tar -t`, `unzip -l/-p`, `zipinfo`, and decompressors that write to stdout (`zcat`, `gzip -dc`, `xzcat`, `bzcat`).
import { parseArgs } from "./arg-spec.js";
import type { ArgSpec, ParsedArgs } from "./arg-spec.js";
import type { ProgramRule } from "./program-rules.js";
import type { ShellWord } from "./shell-words.js";

/** tar options that change nothing but what the listing shows. Anything that runs a program, reads a list or writes is absent. */
const TAR: ArgSpec = {
  short: "tvzjJ",
  shortValue: "f",
  long: [
    "list", "file=", "verbose", "gzip", "gunzip", "ungzip", "bzip2", "xz", "lzma", "lzip", "lzop", "zstd", "wildcards", "no-wildcards",
    "anchored", "no-anchored", "ignore-case", "no-ignore-case", "wildcards-match-slash", "no-wildcards-match-slash", "exclude=",
    "numeric-owner", "utc", "full-time", "quoting-style=", "force-local", "occurrence[=]", "totals", "version",
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
  // Without -f tar reads the archive named by TAPE or a compiled-in device: not something the gate can see.
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
  if (words[0]?.value === "-Z" && !words[0].glob) return checkArgs("unzip -Z", words.slice(1), ZIPINFO);
  const parsed = parseArgs("unzip", words, UNZIP);
  if (!parsed.ok) return parsed.reason;
  return parsed.args.flags.some((f) => UNZIP_MODES.includes(f.name)) ? null : "unzip without -l, -v, -t, -p, -c or -z extracts files";
}

function checkArgs(program: string, words: readonly ShellWord[], spec: ArgSpec): string | null {
  const parsed = parseArgs(program, words, spec);
  return parsed.ok ? null : parsed.reason;
}

/** A decompressor's options: `cat` says it always writes to stdout (zcat, xzcat, bzcat); otherwise it needs -c, -l or -t. */
interface Decompressor {
  spec: ArgSpec;
  toStdout: readonly string[];
}

const GZIP: Decompressor = {
  spec: {
    short: "cdfklnNqrtv123456789",
    shortValue: "S",
    long: ["stdout", "to-stdout", "decompress", "uncompress", "force", "keep", "list", "no-name", "name", "quiet", "recursive", "test", "verbose", "fast", "best", "suffix=", "rsyncable", "synchronous", "version"],
  },
  toStdout: ["-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test"],
};
const XZ: Decompressor = {
  spec: {
    short: "zdtlkfcqvVe0123456789",
    shortValue: "TFCSM",
    long: ["compress", "decompress", "uncompress", "test", "list", "keep", "force", "stdout", "to-stdout", "quiet", "verbose", "threads=", "format=", "check=", "single-stream", "no-sparse", "suffix=", "memlimit=", "memory=", "robot", "extreme", "fast", "best", "ignore-check", "version", "info-memory"],
  },
  toStdout: ["-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test"],
};
const BZIP2: Decompressor = {
  spec: { short: "dzkftcqvsV123456789", long: ["decompress", "compress", "keep", "force", "test", "stdout", "quiet", "verbose", "small", "fast", "best", "version"] },
  toStdout: ["-c", "--stdout", "-t", "--test"],
};

function decompressorRule(program: string, kind: Decompressor, alwaysStdout: boolean): ProgramRule {
  return {
    spec: kind.spec,
    readsContent: true,
    check: (args: ParsedArgs) => {
      if (alwaysStdout || args.flags.some((f) => kind.toStdout.includes(f.name))) return null;
      return `${program} without -c (or -l, -t) writes files next to its input`;
    },
  };
}

/** The archive and decompression rules; merged into the table by rules-more.ts. */
export const ARCHIVE_RULES: ReadonlyArray<readonly [string, ProgramRule]> = [
  ["tar", { check: (_args, words) => checkTar(words) }],
  ["unzip", { check: (_args, words) => checkUnzip(words), readsContent: true }],
  ["zipinfo", { spec: ZIPINFO }],
  ["gzip", decompressorRule("gzip", GZIP, false)],
  ["gunzip", decompressorRule("gunzip", GZIP, false)],
  ["zcat", decompressorRule("zcat", GZIP, true)],
  ["xz", decompressorRule("xz", XZ, false)],
  ["unxz", decompressorRule("unxz", XZ, false)],
  ["xzcat", decompressorRule("xzcat", XZ, true)],
  ["bzip2", decompressorRule("bzip2", BZIP2, false)],
  ["bunzip2", decompressorRule("bunzip2", BZIP2, false)],
  ["bzcat", decompressorRule("bzcat", BZIP2, true)],
];
