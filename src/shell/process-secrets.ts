// Reads that expose another process's environment (and so the API key): refused in every mode, bypass included.
import { expandBraces } from "./brace-expand.js";
import { resolveWord, wordPieces, type Base, type PathContext } from "./path-resolve.js";
import { rawCommands } from "./raw-words.js";
import { DECOMPRESSORS } from "./rules-archive.js";
import { isProcessSecretPath, normalizeSlashes as normalize } from "../gate/secret-paths.js";

const RECURSIVE_READERS = new Set(["grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "git", ...DECOMPRESSORS]);
/** Folders a line may `cd` into before the guard stops following and assumes it may be anywhere. */
const MAX_BASES = 16;

/**
 * Why a command may not run in any mode: the environment (API key included) shows through `/proc/<pid>/environ` and `ps e` in forms no
 * redaction catches. Raw words resolved as bash would, from every `cd`: a path into /proc, `/pro*`, a recursive search from `/`.
 */
export function processSecretsReason(command: string, context: PathContext = {}): string | null {
  const commands = rawCommands(command);
  const bases = cdBases(commands, context);
  const loose = command.split(/[\s;|&<>()`'"=]+/).filter(Boolean);
  for (const word of [...commands.flat(), ...loose]) {
    const why = wordReason(word, bases, context.home);
    if (why !== null) return why;
  }
  for (const words of commands) {
    const why = recursiveFromRootReason(words, bases, context.home);
    if (why !== null) return why;
  }
  // The check as it was before paths were resolved (a reader first on the line, `/` anywhere): nothing it refused is let through.
  if (RECURSIVE_READERS.has(loose[0] ?? "") && loose.slice(1).some((w) => normalize(w) === "/")) return "a recursive search from / reads /proc, where process environments live";
  if (/(^|[\s;|&(`])ps\s+(?:[^\s-]*e|[^|;&]*\s[^\s-]*e)/.test(command)) return "`ps e` prints the environment of processes";
  return null;
}

function wordReason(word: string, bases: readonly Base[], home: string | undefined): string | null {
  for (const path of wordPaths(word, bases, home)) {
    if (isProcessSecretPath(path)) return "it reads /proc, where process environments (and the API key) live";
    if (/^\/[^/]*[*?[]/.test(path)) return "a wildcard at the top of the file tree can reach /proc";
  }
  return null;
}

function recursiveFromRootReason(words: readonly string[], bases: readonly Base[], home: string | undefined): string | null {
  const reader = words.findIndex((w) => RECURSIVE_READERS.has(w.slice(w.lastIndexOf("/") + 1)));
  if (reader === -1) return null;
  const fromRoot = words.slice(reader + 1).some((w) => wordPaths(w, bases, home).includes("/"));
  return fromRoot ? "a recursive search from / reads /proc, where process environments live" : null;
}

/** Every path a word may name: each piece after `=` or `:`, each brace alternative, from each base. */
function wordPaths(word: string, bases: readonly Base[], home: string | undefined): string[] {
  // The word as written too, `..` kept: `/proc/../etc` was refused before paths were resolved, and still is.
  const paths: string[] = word.startsWith("/") ? [normalize(word)] : [];
  for (const piece of wordPieces(word)) {
    // Too many alternatives to list: each brace group may stand for anything, like a wildcard.
    const expanded = expandBraces(piece) ?? [piece.replace(/\{[^{}]*\}?/g, "*")];
    for (const one of expanded) paths.push(...resolveWord(one, bases, home));
  }
  return paths;
}

/** The folders commands of the line may run in: the working folder and every `cd`/`pushd` target, in order. */
function cdBases(commands: readonly string[][], context: PathContext): Base[] {
  const bases = new Set<Base>([context.cwd ?? ""]);
  for (const words of commands) {
    words.forEach((word, index) => {
      if (word !== "cd" && word !== "pushd") return;
      const target = words.slice(index + 1).find((w) => w === "-" || !w.startsWith("-")) ?? "~";
      if (bases.size >= MAX_BASES || target === "-" || /[*?[]/.test(target)) bases.add("/");
      if (bases.size >= MAX_BASES || target === "-") return;
      for (const path of wordPaths(target, [...bases], context.home)) bases.add(path);
    });
  }
  return [...bases];
}

