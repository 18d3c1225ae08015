// Walking skill folders: where the SKILL.md files are, and which other files a skill carries.
import { readdirSync, realpathSync, statSync, type Dirent } from "node:fs";
import { join, resolve } from "node:path";
import { orFallback } from "../errors.js";

const SKILL_FILE = "SKILL.md";
/** How deep below a skills folder a SKILL.md is looked for (`<dir>/<collection>/<name>/SKILL.md` is depth 3). */
const MAX_SKILL_DEPTH = 5;
/** Most files listed for one skill, so a huge folder cannot flood a tool result. */
const MAX_RESOURCE_FILES = 1000;

function skipped(name: string): boolean {
  return name.startsWith(".") || name === "node_modules" || name === "__pycache__";
}

/** A folder's entries; none when it cannot be listed. */
function entries(dir: string): Dirent[] {
  return orFallback(() => readdirSync(dir, { withFileTypes: true }), []);
}

/** A folder, or a link to one; a link loop (ELOOP) or an unreadable target is no skill folder. */
function isDirectory(path: string, entry: Dirent): boolean {
  if (entry.isDirectory()) return true;
  return entry.isSymbolicLink() && orFallback(() => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true, false);
}

/**
 * Every SKILL.md under `root`, sorted: a folder holding one is a skill, others are searched to MAX_SKILL_DEPTH, hidden ones
 * and `node_modules` skipped, links followed once. Synchronous: small directory reads take microseconds, the pool ~0.3 ms.
 */
export function findSkillFiles(root: string, warn: (message: string) => void): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  // `real` is the folder's real path, which `seen` keys on: asked of the system only for the root and for links.
  function walk(dir: string, real: string, depth: number): void {
    if (seen.has(real)) return;
    seen.add(real);
    const list = entries(dir);
    if (list.some((entry) => entry.name === SKILL_FILE && !entry.isDirectory())) {
      found.push(join(dir, SKILL_FILE));
      return;
    }
    if (depth >= MAX_SKILL_DEPTH) {
      if (list.some((entry) => entry.isDirectory() && !skipped(entry.name))) warn(`${dir}: not searched for skills, deeper than ${MAX_SKILL_DEPTH} levels below ${root}`);
      return;
    }
    for (const entry of list.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (skipped(entry.name) || !isDirectory(path, entry)) continue;
      walk(path, entry.isSymbolicLink() ? realPath(path) : join(real, entry.name), depth + 1);
    }
  }
  const start = resolve(root);
  walk(start, realPath(start), 0);
  return found.sort();
}

/** The path with every link resolved; the path itself when that fails (a dangling or unreadable path is listed as empty). */
function realPath(path: string): string {
  return orFallback(() => realpathSync.native(path), path);
}

/** The absolute paths of a skill's files other than its SKILL.md, sorted; hidden files skipped. */
export function listSkillResources(dir: string, skillFile: string): string[] {
  const files: string[] = [];
  function walk(current: string): void {
    for (const entry of entries(current)) {
      if (files.length >= MAX_RESOURCE_FILES || skipped(entry.name)) continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path !== skillFile) files.push(path);
    }
  }
  walk(dir);
  return files.sort();
}
