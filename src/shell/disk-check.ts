// The gate's second pass: what a command judged safe will read, checked against the disk (symlinks, wildcards, folders, git history).
import { realpath } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { expandGlob, MAX_CONTENT_CHECKS, MAX_WALK_ENTRIES, walkTree, type Budget } from "./disk-walk.js";
import { gitHistoryReason, remoteCredentialsReason } from "./git-secrets.js";
import { homeReason, type PathContext } from "./path-resolve.js";
import { orFallback } from "../errors.js";
import { NO_FILTERS, type PlannedRead, type ReadPlan } from "./read-plan.js";
import { isProcessSecretPath, placeReason, walkNameReason, fileContentSecretReason } from "../gate/secret-paths.js";
import { literalPathReason } from "./word-reads.js";

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
