// One argument of a command as the paths it may open (braces expanded, `~` and `..` resolved, judged by place and by name),
// from every folder the commands of its line may run in.
import { MAX_BRACE_WORDS, expandBraces } from "./brace-expand.js";
import { homeDotfileReason, namesPart, physicalWords, PREVIOUS_FOLDER, resolveWord, wordPieces, type Base, type PathContext } from "./path-resolve.js";
import type { PlannedRead } from "./read-plan.js";
import { globReason, nameReason, pathReason, placeReason, repositoryConfigReason } from "../gate/secret-paths.js";
import type { SimpleCommand } from "./shell-parse.js";
import { PROCESS_SUBSTITUTION_PATH, type ShellWord } from "./shell-words.js";

/** Where the words of one simple command are resolved from: every folder the line may have `cd`-ed into. */
export interface WordScope { bases: readonly Base[]; context: PathContext }
/** `content`: what is read may be printed. `name`: only names, sizes or counts come out. */
type WordRole = "content" | "name";

/** The words bash makes of `word` by brace expansion, each with whether wildcards remain; a reason when too many. */
export function wordVariants(word: ShellWord): { values: Array<{ value: string; glob: boolean }> } | { reason: string } {
  if (!word.glob) return { values: [{ value: word.value, glob: false }] };
  const expanded = expandBraces(word.value);
  const shown = word.value.length > 60 ? `${word.value.slice(0, 57)}...` : word.value;
  if (expanded === null) return { reason: `the brace expansion of \`${shown}\` makes more than ${MAX_BRACE_WORDS} words` };
  return { values: expanded.map((value) => ({ value, glob: /[*?[]/.test(value) })) };
}

/**
 * Why reading `word` may expose a secret, /proc or a device, or blow up; else null, its paths added to `reads` when `opened` (not an
 * option). Literal paths are judged for every role (`du --files0-from=/proc/1/environ`), wildcards only for content (`ls *` shows names).
 */
export function judgeWord(word: ShellWord, role: WordRole, scope: WordScope, program: string, reads: PlannedRead[], opened = true): string | null {
  // A `<( )` pipe, whose commands were judged on their own; written by hand it names a descriptor no child has open.
  if (word.dynamic === true || (!word.glob && word.value === PROCESS_SUBSTITUTION_PATH)) return null;
  const asWritten = writtenReason(word, role);
  if (asWritten !== null) return asWritten;
  const variants = wordVariants(word);
  if ("reason" in variants) return variants.reason;
  for (const { value, glob } of variants.values) {
    // Options are judged by name only; the files options read arrive as words of their own.
    const planned = opened ? value : null;
    for (const piece of wordPieces(value)) {
      const physical = glob || piece !== planned ? [] : physicalWords(piece, scope.bases, scope.context.home);
      for (const path of resolveWord(piece, scope.bases, scope.context.home)) {
        const reason = glob ? globPathReason(path, role, scope.context) : literalPathReason(path, scope.context);
        if (reason !== null) return reason;
        if (piece === planned && path.startsWith("/")) reads.push({ path, glob, kind: role, program, ...(physical.length > 0 ? { physical } : {}) });
      }
    }
  }
  return null;
}

/** The word judged as written, before any resolution (`.ssh/../x` names `.ssh`). */
function writtenReason(word: ShellWord, role: WordRole): string | null {
  for (const piece of wordPieces(word.value)) {
    const reason = word.glob ? (role === "content" ? globReason(piece) : null) : (pathReason(piece) ?? repositoryConfigReason(piece));
    if (reason !== null) return reason;
  }
  return null;
}

/** Why a resolved path is secret: by place, by the names below the working folder (`byName`), or as a repository's configuration. */
export function literalPathReason(path: string, context: PathContext, byName: (names: string) => string | null = nameReason): string | null {
  return placeReason(path) ?? byName(namesPart(path, context.cwd)) ?? homeDotfileReason(path, context.home) ?? repositoryConfigReason(path);
}

function globPathReason(pattern: string, role: WordRole, context: PathContext): string | null {
  if (role !== "content") return null;
  if (/^\/[^/]*[*?[]/.test(pattern)) return `the wildcard \`${pattern}\` at the top of the file tree can reach /proc`;
  const plain = pattern.replace(/[*?[\]]/g, "");
  return placeReason(plain) ?? homeDotfileReason(plain, context.home) ?? globReason(namesPart(pattern, context.cwd));
}

const MAX_BASES = 16;

/** Every folder a command of the line may run in: each `cd` target is added (a `cd` may fail or end with a subshell), `cd -` adds `/` and a folder of unknown place. */
export function lineBases(commands: readonly SimpleCommand[], context: PathContext): { bases: Base[]; reason: string | null } {
  const bases = new Set<Base>([context.cwd ?? ""]);
  for (const command of commands) {
    const [name, ...args] = command.argv;
    if (name?.value !== "cd" || name.glob || name.dynamic === true) continue;
    const target = cdTarget(args);
    if (target === "-") {
      bases.add("/").add(PREVIOUS_FOLDER);
      continue;
    }
    const variants = wordVariants(target);
    if ("reason" in variants) return { bases: [...bases], reason: `cd ${variants.reason}` };
    if (variants.values.some((v) => v.glob) || target.dynamic === true) return { bases: [...bases], reason: `cd into \`${target.value}\`, a folder the gate cannot know in advance` };
    const from = [...bases];
    for (const { value } of variants.values) {
      for (const path of resolveWord(value, from, context.home)) bases.add(path);
      // Where the kernel's `cd` lands when `..` follows a link.
      for (const path of physicalWords(value, from, context.home)) bases.add(path);
    }
    if (bases.size > MAX_BASES) return { bases: [...bases], reason: "the line changes folder too many times for the gate to follow" };
  }
  return { bases: [...bases], reason: null };
}

const HOME: ShellWord = { value: "~", glob: false };

function cdTarget(args: readonly ShellWord[]): ShellWord | "-" {
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as ShellWord;
    if (word.value === "-") return "-";
    if (word.value === "--") return args[i + 1] ?? HOME;
    if (!word.value.startsWith("-")) return word;
  }
  return HOME;
}
