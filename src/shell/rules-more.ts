// More read-only programs: archive listings, system information, checksums, text tools, awk, version queries, test and printf.
import type { ProgramRule } from "./program-rules.js";
import { ARCHIVE_RULES } from "./rules-archive.js";
import { AWK_RULES } from "./rules-awk.js";
import { COMPARE_RULES } from "./rules-compare.js";
import { SYSTEM_RULES, testRule } from "./rules-system.js";
import { VERSION_RULES } from "./rules-versions.js";
import type { ShellWord } from "./shell-words.js";

/**
 * `printf` prints its arguments, so computed ones are harmless, except as the format or before
 * it, where a substitution could turn into `-v NAME` and assign a shell variable (PATH, for one).
 * Replaces the table's `printf`, which refused every computed argument.
 */
const PRINTF: ProgramRule = {
  spec: { anyFlags: true, deny: { "-v": "assigns a shell variable (PATH, for one)" } },
  printsArgs: true,
  check: (_args, words) => {
    const format = words[0]?.value === "--" ? words[1] : words[0];
    const early = words.slice(0, words.indexOf(format as ShellWord) + 1).find((w) => w.dynamic === true);
    return early === undefined ? null : "printf: a computed format or option could be `-v NAME` (assigning a shell variable)";
  },
};

/**
 * `basename` and `dirname` only cut strings (no option opens a file), so a computed argument
 * (`basename "$(pwd)"`) is harmless. Replace the table's rules, which refused it.
 */
const STRING_ONLY: ProgramRule = { spec: { anyFlags: true }, printsArgs: true };

/** Merged into PROGRAM_RULES; a name here replaces the same name there (here: `printf`, `basename`, `dirname`). */
export const MORE_RULES: ReadonlyArray<readonly [string, ProgramRule]> = [
  ...ARCHIVE_RULES,
  ...AWK_RULES,
  ...COMPARE_RULES,
  ...SYSTEM_RULES,
  ...VERSION_RULES,
  ["test", testRule("test")],
  ["[", testRule("[")],
  ["printf", PRINTF],
  ["basename", STRING_ONLY],
  ["dirname", STRING_ONLY],
];
