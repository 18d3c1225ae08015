// The TMPDIR of read-only commands: a folder of its own for each running command, kept for a later one when it is left empty.
import { lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { orFallback, ToolError } from "../errors.js";

/** Empty folders kept per parent; few, since a process killed outright leaves the ones it kept behind. */
const MAX_SPARE = 2;
/** How long kept folders outlive the last command: quick rounds reuse them, and a process killed outright after a pause leaves none. */
const SPARE_IDLE_MS = 2_000;
const spare = new Map<string, string[]>();
let removedAtExit = false;
let idleTimer: NodeJS.Timeout | undefined;

/** A folder of its own for one command under `parent`: a kept one still this user's alone, or a new one. Throws ToolError when none can be made. */
export function takeScratch(parent: string): string {
  const kept = spare.get(parent);
  // One no longer ours is forgotten, not removed: what is at that name now may be someone else's.
  for (let dir = kept?.pop(); dir !== undefined; dir = kept?.pop()) if (isOwnFolder(dir)) return dir;
  if (!removedAtExit) {
    removedAtExit = true;
    process.once("exit", removeSpare);
  }
  try {
    return mkdtempSync(join(parent, "miniclaw-cmd-"));
  } catch (error) {
    throw new ToolError(`cannot make a temporary folder for the command in ${parent}: ${(error as Error).message}`);
  }
}

/** Gives back an ended command's folder: kept for a later one when `keep` and left empty, else removed with what it holds. */
export async function returnScratch(parent: string, dir: string, keep: boolean): Promise<void> {
  const kept = spare.get(parent) ?? [];
  if (keep && kept.length < MAX_SPARE && orFallback(() => readdirSync(dir).length === 0, false)) {
    kept.push(dir);
    spare.set(parent, kept);
    idleTimer ??= setTimeout(removeSpare, SPARE_IDLE_MS).unref();
    idleTimer.refresh();
    return;
  }
  // One that cannot be removed (a process just killed still writing in it) is left to the system's cleaning.
  await rm(dir, { recursive: true, force: true, maxRetries: 2 }).catch(() => undefined);
}

/** A folder (not a link) of this user's that nobody else can enter: a kept one may have been cleaned away and its name taken. */
function isOwnFolder(dir: string): boolean {
  const info = orFallback(() => lstatSync(dir), null);
  const owner = process.getuid?.();
  return info !== null && info.isDirectory() && (owner === undefined || info.uid === owner) && (info.mode & 0o077) === 0;
}

function removeSpare(): void {
  for (const dirs of spare.values()) {
    // One that cannot be removed is already gone, or the system's cleaning will take it.
    for (const dir of dirs.splice(0)) if (isOwnFolder(dir)) orFallback(() => rmSync(dir, { recursive: true, force: true }), undefined);
  }
}
