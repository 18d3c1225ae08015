// One argument of a command as the paths it may open: braces expanded, `~` and `..` resolved, judged by place and by name.
import { MAX_BRACE_WORDS, braceWordCount, expandBraces } from "./brace-expand.js";
import { homeDotfileReason, physicalWords, resolveWord } from "./path-resolve.js";
import type { Base, PathContext } from "./path-resolve.js";
import type { PlannedRead } from "./read-plan.js";
import { globReason, nameReason, pathReason, placeReason, repositoryConfigReason } from "../gate/secret-paths.js";
import { PROCESS_SUBSTITUTION_PATH } from "./shell-words.js";
import type { ShellWord } from "./shell-words.js";

/** Where the words of one simple command are resolved from: every folder the line may have `cd`-ed into. */
export interface WordScope {
  bases: readonly Base[];
  context: PathContext;
}

/** `content`: what is read may be printed. `name`: only names, sizes or counts come out. */
export type WordRole = "content" | "name";

/** Why the word is not safe (null when it is), and what the disk-aware pass must still look at. */
export interface WordJudgement {
  reason: string | null;
  /** The absolute paths the word may name, for the disk-aware pass. */
  reads: PlannedRead[];
}

/** The words bash makes of `word` by brace expansion, each with whether wildcards remain; a reason when too many. */
export function wordVariants(word: ShellWord): { values: Array<{ value: string; glob: boolean }> } | { reason: string } {
  if (!word.glob) return { values: [{ value: word.value, glob: false }] };
  const expanded = braceWordCount(word.value) > MAX_BRACE_WORDS ? null : expandBraces(word.value);
  if (expanded === null) return { reason: `the brace expansion of \`${clip(word.value)}\` makes more than ${MAX_BRACE_WORDS} words` };
  return { values: expanded.map((value) => ({ value, glob: /[*?[]/.test(value) })) };
}

/**
 * Why reading `word` may expose a secret, read /proc or a device, or blow up; with the
 * absolute paths it names when `opened` (an operand or a file option's value, not an option).
 * Literal paths are judged for every role (`du --files0-from=/proc/1/environ` prints what it
 * reads); wildcards only for content, since `ls *` shows names alone. A piece after `=` or `:`
 * counts as a path too (`--file=.env`, `HEAD:.env`). Called for every argument of an allowed program.
 */
export function judgeWord(word: ShellWord, role: WordRole, scope: WordScope, program: string, opened = true): WordJudgement {
  if (word.dynamic === true) return { reason: null, reads: [] };
  // The pipe of a `<( )` whose commands were judged on their own. Written by hand it names a descriptor
  // no child has open (run_command passes none beyond stdin, stdout and stderr), so it reads nothing either way.
  if (!word.glob && word.value === PROCESS_SUBSTITUTION_PATH) return { reason: null, reads: [] };
  const asWritten = writtenReason(word, role);
  if (asWritten !== null) return { reason: asWritten, reads: [] };
  const variants = wordVariants(word);
  if ("reason" in variants) return { reason: variants.reason, reads: [] };
  const reads: PlannedRead[] = [];
  for (const { value, glob } of variants.values) {
    // Options are judged by name only; the files options read arrive as words of their own (`fileOptions`).
    const planned = opened ? value : null;
    for (const piece of new Set([value, ...value.split(/[=:]/)])) {
      if (piece === "") continue;
      const physical = glob || piece !== planned ? [] : physicalWords(piece, scope.bases, scope.context.home);
      for (const path of resolveWord(piece, scope.bases, scope.context.home)) {
        const reason = glob ? globPathReason(path, role, scope.context) : literalPathReason(path, scope.context);
        if (reason !== null) return { reason, reads: [] };
        if (piece === planned && path.startsWith("/")) reads.push({ path, glob, kind: role, program, ...(physical.length > 0 ? { physical } : {}) });
      }
    }
  }
  return { reason: null, reads };
}

/** The word judged as written, before any resolution (`.ssh/../x` names `.ssh`): what the gate refused before it resolved paths stays refused. */
function writtenReason(word: ShellWord, role: WordRole): string | null {
  for (const piece of new Set([word.value, ...word.value.split(/[=:]/)])) {
    const reason = word.glob ? (role === "content" ? globReason(piece) : null) : (pathReason(piece) ?? repositoryConfigReason(piece));
    if (reason !== null) return reason;
  }
  return null;
}

/**
 * Why a resolved literal path is secret: by its place (devices, /proc, home dotfiles), by the
 * names below the working folder, or as a repository's configuration (judged on the whole path:
 * `cd .git && cat config` reads it too).
 */
export function literalPathReason(path: string, context: PathContext): string | null {
  return placeReason(path) ?? nameReason(namesPart(path, context.cwd)) ?? homeDotfileReason(path, context.home) ?? repositoryConfigReason(path);
}

function globPathReason(pattern: string, role: WordRole, context: PathContext): string | null {
  if (role !== "content") return null;
  if (/^\/[^/]*[*?[]/.test(pattern)) return `the wildcard \`${pattern}\` at the top of the file tree can reach /proc`;
  const plain = pattern.replace(/[*?[\]]/g, "");
  return placeReason(plain) ?? homeDotfileReason(plain, context.home) ?? globReason(namesPart(pattern, context.cwd));
}

/** The part of `path` below the working folder, whose names say what it is; the whole path when outside. */
export function namesPart(path: string, cwd: string | undefined): string {
  if (cwd === undefined || !path.startsWith("/")) return path;
  const root = cwd.length > 1 ? cwd.replace(/\/+$/, "") : cwd;
  if (path === root) return ".";
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
