// The gate's second pass: what a command judged safe will read, checked against the disk (symlinks, wildcards, folders, git history),
// in bounded looks: wildcards expanded as bash would (or wider), and folder trees walked as a recursive reader would walk them,
// skipping only what it surely skips (rg's hidden files, grep's --include/--exclude as GNU grep 3 applies them).
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { gitHistoryReason, remoteCredentialsReason } from "./git-secrets.js";
import { orFallback } from "../errors.js";
import { NO_FILTERS, type PlannedRead, type ReadPlan, type TreeFilters } from "./read-plan.js";
import { fileContentSecretReason, globToRegExp, isProcessSecretPath, placeReason, walkNameReason } from "../gate/secret-paths.js";
import { homeReason, literalPathReason, type PathContext } from "./word-reads.js";

/** Entries the gate looks at for one command before it gives up and asks. */
const MAX_WALK_ENTRIES = 20_000;
/** Files whose first KB the gate reads for secrets, for one command; past it, by name only (what they print is still redacted). */
const MAX_CONTENT_CHECKS = 2_000;
/** Countdowns shared by every look at the disk for one command. */
interface Budget { left: number; contentLeft: number }

/**
 * Why a command the pure pass judged safe is not, once the disk is looked at (`cwd` real): paths by their real place and first KB,
 * wildcards expanded, walked folders searched, git's patches and remotes. Only ever adds reasons; a missing path is fine.
 */
export async function diskReasons(plan: ReadPlan, context: { cwd: string; home?: string }): Promise<string[]> {
  const budget: Budget = { left: MAX_WALK_ENTRIES, contentLeft: MAX_CONTENT_CHECKS };
  const reasons: string[] = [];
  const seen = new Set<string>();
  for (const read of plan.reads) {
    const key = `${read.kind}\0${read.glob}\0${read.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const why = await readReason(read, context, budget);
    if (why !== null) reasons.push(why);
  }
  // Where a `git remote` runs: git's words reach the plan as reads (`git remote -v` in `/r` reads `/r/remote`).
  for (const dir of new Set(plan.reads.filter((r) => r.program === "git" && !r.glob && basename(r.path) === "remote").map((r) => dirname(r.path)))) {
    const why = await remoteCredentialsReason(dir, context.home);
    if (why !== null) reasons.push(why);
  }
  for (const dir of new Set(plan.gitContentDirs)) {
    const why = await gitHistoryReason(dir, context.home, [...new Set(plan.gitObjects)]);
    if (why !== null) reasons.push(`git ${why}`);
  }
  return reasons;
}

async function readReason(read: PlannedRead, context: PathContext, budget: Budget): Promise<string | null> {
  // A literal path as the kernel opens it (`..` after links) first, then the normalised one the pure pass judged.
  const matches = read.glob ? await expandGlob(read.path, budget) : [...(read.physical ?? []), read.path];
  if (matches === null) return `${read.program}: the wildcard ${read.path} matches more files than the gate can check`;
  for (const match of matches) {
    const why = await realPathReason(read, match, read.glob, context, budget);
    if (why !== null) return why;
  }
  return null;
}

/** One existing path, by its real location; a wildcard's matches for a names-only program are judged by place only. */
async function realPathReason(read: PlannedRead, path: string, fromGlob: boolean, judged: PathContext, budget: Budget): Promise<string | null> {
  const real = await realpath(path).catch(() => null);
  if (real === null) return null;
  const shown = real === path ? path : `${path} (really ${real})`;
  const say = (why: string): string =>
    why.startsWith(`reads ${real}`) ? `${read.program} reads ${shown}${why.slice(`reads ${real}`.length)}` : `${read.program} reads ${shown}, and ${why}`;
  if (read.kind === "listing") return real === "/" || isProcessSecretPath(real) ? `${read.program} lists ${shown}, the whole file system or /proc` : null;
  if (read.kind !== "tree") {
    const why = read.kind === "name" && fromGlob ? placeReason(real) : literalPathReason(real, judged);
    const inside = why === null && read.kind === "content" ? contentReason(real, budget) : null;
    return why !== null ? say(why) : inside === null ? null : `${read.program} reads ${shown}, and ${inside}`;
  }
  const why = homeReason(real, judged.home) ?? literalPathReason(real, judged);
  if (why !== null) return say(why);
  const found = await walkTree(real, read.filters ?? NO_FILTERS, budget, (entry, target, isDir) => {
    // The folders above an entry were judged on the way down: its own name is what is new, unless a link leads elsewhere.
    const byName = (names: string): string | null => walkNameReason(names, isDir);
    const named = target === entry ? byName(basename(entry)) : (literalPathReason(target, judged, byName) ?? homeReason(target, judged.home));
    const reason = named ?? (isDir ? null : contentReason(target, budget));
    return reason === null ? null : `${entry}${target === entry ? "" : ` (a link to ${target})`}: ${reason}`;
  });
  return found === null ? null : `${read.program} reads every file under ${shown}, and ${found}`;
}

/** Within the budget; a file the gate cannot open, the command cannot either. */
function contentReason(path: string, budget: Budget): string | null {
  // git's objects are compressed: no shape shows through, and a walk of a repository would spend the budget on them.
  if (budget.contentLeft <= 0 || /\/\.git\/objects\//i.test(path)) return null;
  budget.contentLeft--;
  return orFallback(() => fileContentSecretReason(path), null);
}

/** The paths an absolute wildcard may match, or null past the budget: wider than bash (any bracket character, any case); dotfiles need a dot. */
async function expandGlob(pattern: string, budget: Budget): Promise<string[] | null> {
  let current = ["/"];
  for (const segment of pattern.split("/").filter((s) => s !== "")) {
    if (!/[*?[]/.test(segment)) {
      current = current.map((dir) => join(dir, segment));
      continue;
    }
    const re = globToRegExp(segment);
    const next: string[] = [];
    for (const dir of current) {
      const names = await readdir(dir).catch(() => [] as string[]);
      budget.left -= names.length;
      if (budget.left < 0) return null;
      for (const name of names) if (re.test(name)) next.push(join(dir, name));
    }
    current = next;
  }
  return current;
}

type WalkVisitor = (path: string, real: string, isDir: boolean) => string | null;

/**
 * Walks the real folder `root` as a reader with `filters` would, judging each file it opens and each symlink's target: the first reason,
 * or "too many" past the budget. Unreadable folders are skipped, as readers skip them.
 */
async function walkTree(root: string, filters: TreeFilters, budget: Budget, judge: WalkVisitor): Promise<string | null> {
  const seen = new Set<string>([root]);
  let level = [root];
  // Breadth first, each level's folders read together.
  while (level.length > 0) {
    const listed = await Promise.all(level.map(async (dir) => ({ dir, entries: await readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]) })));
    const next: string[] = [];
    for (const { dir, entries } of listed) {
      budget.left -= entries.length;
      if (budget.left < 0) return `it holds more than ${MAX_WALK_ENTRIES} files to check for secrets`;
      for (const entry of entries) {
        const why = await visit(entry, join(dir, entry.name), filters, judge, (real) => {
          if (!seen.has(real)) next.push(real);
          seen.add(real);
        });
        if (why !== null) return why;
      }
    }
    level = next;
  }
  return null;
}

async function visit(entry: Dirent, path: string, filters: TreeFilters, judge: WalkVisitor, descend: (real: string) => void): Promise<string | null> {
  if (entry.isDirectory()) {
    if (skipsDir(entry.name, filters)) return null;
    const why = judge(path, path, true);
    if (why === null) descend(path);
    return why;
  }
  if (entry.isSymbolicLink()) {
    if (skipsFile(entry.name, filters) && skipsDir(entry.name, filters)) return null;
    const real = await realpath(path).catch(() => null);
    const isDir = real === null ? false : await stat(real).then((s) => s.isDirectory(), () => false);
    if (real === null || (isDir ? skipsDir(entry.name, filters) : skipsFile(entry.name, filters))) return null;
    const why = judge(path, real, isDir);
    if (why === null && isDir && filters.followLinks) descend(real);
    return why;
  }
  if (skipsFile(entry.name, filters)) return null;
  if (!entry.isFile()) return `${path} is a special file (a pipe, socket or device) that a reader may wait on forever`;
  return judge(path, path, false);
}

/** GNU grep: the last --include/--exclude that matches decides, else the first being --include skips; a doubt means "read". */
function skipsFile(name: string, filters: TreeFilters): boolean {
  if (filters.skipHidden && name.startsWith(".")) return true;
  if (filters.fileFilters.length === 0) return false;
  for (let i = filters.fileFilters.length - 1; i >= 0; i--) {
    const { include, glob } = filters.fileFilters[i] as { include: boolean; glob: string };
    if (matches(glob, name, include)) return !include;
  }
  return filters.fileFilters[0]?.include === true && !filters.opaqueFilters;
}

function skipsDir(name: string, filters: TreeFilters): boolean {
  if (filters.skipHidden && name.startsWith(".")) return true;
  return filters.excludeDirs.some((glob) => matches(glob, name, false));
}

function matches(glob: string, name: string, whenUnsure: boolean): boolean {
  const re = fnmatchRegExp(glob);
  return re === null ? whenUnsure : re.test(name);
}

/** fnmatch without FNM_PERIOD (grep's globs match a leading dot too); null for syntax not translated here. */
function fnmatchRegExp(glob: string): RegExp | null {
  if (glob.includes("[:") || glob.includes("[=") || glob.includes("[.")) return null;
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "\\" && i + 1 < glob.length) source += escape(glob[++i] as string);
    else if (c === "*") source += "[\\s\\S]*";
    else if (c === "?") source += "[\\s\\S]";
    else if (c === "[") {
      const end = glob.indexOf("]", i + (glob[i + 1] === "!" || glob[i + 1] === "^" ? 3 : 2));
      if (end === -1) source += "\\[";
      else {
        const body = glob.slice(i + 1, end).replace(/^[!^]/, "^").replace(/\\/g, "\\\\").replace(/^(\^?)\]/, "$1\\]");
        source += `[${body}]`;
        i = end;
      }
    } else source += escape(c);
  }
  return orFallback(() => new RegExp(`^${source}$`), null);
}

function escape(c: string): string {
  return c.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}
