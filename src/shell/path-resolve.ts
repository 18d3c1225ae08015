// Where a word of a command points, as bash and the kernel will see it: `~`, `..` and the working folder, without touching the disk.

/** Where a command runs. Without `cwd` relative paths are judged by name and a `..` out of it may reach `/`; without `home`, `~` is unknown. */
export interface PathContext { cwd?: string; home?: string }
/** A folder a relative path may start from: absolute, `~`-prefixed (place unknown), or relative to the unknown working folder (""). */
export type Base = string;
/** The folder `cd -` and `~-` lead to ($OLDPWD): unknown, judged like a home folder of unknown place. */
export const PREVIOUS_FOLDER = "~-";
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
export function homeDotfileReason(path: string, home: string | undefined): string | null {
  if (home === undefined || !path.startsWith("/")) return null;
  const dir = stripSlash(home);
  const rest = path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : null;
  if (rest === null || !rest.startsWith(".") || rest === "." || rest === "..") return null;
  return `reads ${path}, a file of the home folder's configuration (keys are often kept there)`;
}

/** The part of `path` below the working folder, whose names say what it is; the whole path when outside. */
export function namesPart(path: string, cwd: string | undefined): string {
  if (cwd === undefined || !path.startsWith("/")) return path;
  const root = stripSlash(cwd);
  if (path === root) return ".";
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}

function stripSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, "") : path;
}
