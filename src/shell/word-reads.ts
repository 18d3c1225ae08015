// One argument of a command as the paths it may open (braces expanded, `~` and `..` resolved, judged by place and by name),
// from every folder the commands of its line may run in; where a word points as bash and the kernel will see it, without the disk.
import { MAX_BRACE_WORDS, expandBraces } from "./brace-expand.js";
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

/** Where a command runs. Without `cwd` relative paths are judged by name and a `..` out of it may reach `/`; without `home`, `~` is unknown. */
export interface PathContext { cwd?: string; home?: string }
/** A folder a relative path may start from: absolute, `~`-prefixed (place unknown), or relative to the unknown working folder (""). */
export type Base = string;
/** The folder `cd -` and `~-` lead to ($OLDPWD): unknown, judged like a home folder of unknown place. */
const PREVIOUS_FOLDER = "~-";
const TILDE = /^~([^/]*)(?:\/(.*))?$/s;

/** The pieces of a word that may be paths: the word, and each piece after `=` or `:` (`--file=.env`, `HEAD:.env`). */
export function wordPieces(word: string): string[] {
  return [...new Set([word, ...word.split(/[=:]/)])].filter((piece) => piece !== "");
}

/** The paths `value` may name from `bases`, normalised; one that climbs above a folder of unknown place is also anchored at `/`, the worst. */
export function resolveWord(value: string, bases: readonly Base[], home: string | undefined): string[] {
  const out = new Set<string>();
  for (const base of bases) for (const path of resolveFrom(value, base, home)) out.add(path);
  return [...out];
}

function resolveFrom(value: string, base: Base, home: string | undefined): string[] {
  const joined = rawJoin(value, base, home);
  if (joined !== null) return [normalize(joined)];
  const tilde = TILDE.exec(value);
  if (tilde !== null) {
    const [, user = "", rest = ""] = tilde;
    if (user === "+") return resolveFrom(rest === "" ? "." : rest, base, home);
    // `~-` is $OLDPWD, which may be any folder (often the user's home): a folder of unknown place, and `/` at worst.
    if (user === "-") return [normalize(rest), ...opaque(PREVIOUS_FOLDER, rest)];
    if (user === "root") return [normalize(`root/${rest}`)];
    return opaque(`~${user}`, rest);
  }
  if (base.startsWith("~")) {
    const slash = base.indexOf("/");
    return opaque(slash === -1 ? base : base.slice(0, slash), slash === -1 ? value : `${base.slice(slash + 1)}/${value}`);
  }
  return opaque("", base === "" ? value : `${base}/${value}`);
}

/** The unnormalised paths `value` names from `bases` when they climb: the kernel resolves links before each `..` (`link/..` is the target's parent). */
export function physicalWords(value: string, bases: readonly Base[], home: string | undefined): string[] {
  const out = new Set<string>();
  for (const base of bases) {
    const raw = rawJoin(value, base, home);
    if (raw !== null && /(^|\/)\.\.(\/|$)/.test(raw)) out.add(raw);
  }
  return [...out];
}

/** `value` joined to an absolute base or the known home, as written; null when it starts from a folder of unknown place. */
function rawJoin(value: string, base: Base, home: string | undefined): string | null {
  if (value.startsWith("/")) return value;
  const tilde = TILDE.exec(value);
  if (tilde !== null) {
    const [, user = "", rest = ""] = tilde;
    if (user === "" && home !== undefined) return `${home}/${rest}`;
    return user === "+" ? rawJoin(rest === "" ? "." : rest, base, home) : null;
  }
  return base.startsWith("/") ? `${base}/${value}` : null;
}

/** A path under a head whose place is unknown (`~user`, `~-`, or "" for the unknown working folder). */
function opaque(head: string, rest: string): string[] {
  const { segments, climbed } = collapse(rest.split("/"));
  if (climbed && head === PREVIOUS_FOLDER) return [`/${segments.join("/")}`, segments.length === 0 ? head : `${head}/${segments.join("/")}`];
  if (climbed) return [`/${segments.join("/")}`];
  const tail = segments.join("/");
  if (head === "") return [tail === "" ? "." : tail];
  return [tail === "" ? head : `${head}/${tail}`];
}

/** An absolute path normalised; `..` at `/` stays at `/`, as the kernel does. */
function normalize(path: string): string {
  return `/${collapse(path.split("/")).segments.join("/")}`;
}

function collapse(parts: readonly string[]): { segments: string[]; climbed: boolean } {
  const segments: string[] = [];
  let climbed = false;
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part !== "..") segments.push(part);
    else if (segments.length > 0) segments.pop();
    else climbed = true;
  }
  return { segments, climbed };
}

/** Home folders by their usual places, for when the real one is not known or is another user's. */
const HOME_LIKE = /^(~[^/]*|\/root|\/home\/[^/]+|\/users\/[^/]+)$/i;
const HOME_PARENTS = new Set(["/", "/home", "/users"]);

/** Why a whole-folder read (`grep -r`, `rg`) of `path` is not safe: it is `/`, a home folder, or a folder that holds one. */
export function homeReason(path: string, home: string | undefined): string | null {
  const p = stripSlash(path);
  if (p === "/") return "reads the whole file system from /";
  if (HOME_LIKE.test(p) || (home !== undefined && p === stripSlash(home))) return `reads the whole home folder ${path}`;
  if (HOME_PARENTS.has(p.toLowerCase())) return `reads ${path}, which holds home folders`;
  if (home !== undefined && p.startsWith("/") && stripSlash(home).startsWith(`${p}/`)) return `reads ${path}, which holds the home folder ${home}`;
  return null;
}

/** Why `path` is a dotfile directly in the known home folder (profiles, tokens), or null. */
function homeDotfileReason(path: string, home: string | undefined): string | null {
  if (home === undefined || !path.startsWith("/")) return null;
  const dir = stripSlash(home);
  const rest = path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : null;
  if (rest === null || !rest.startsWith(".") || rest === "." || rest === "..") return null;
  return `reads ${path}, a file of the home folder's configuration (keys are often kept there)`;
}

/** The part of `path` below the working folder, whose names say what it is; the whole path when outside. */
function namesPart(path: string, cwd: string | undefined): string {
  if (cwd === undefined || !path.startsWith("/")) return path;
  const root = stripSlash(cwd);
  if (path === root) return ".";
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function stripSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}
