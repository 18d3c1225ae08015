// The TMPDIR of read-only commands: a folder of its own for each running command, kept empty for the next one when it ends.
import { mkdtempSync, readdirSync, rmdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";

/** Empty folders kept per parent folder; more are removed (a burst of parallel commands leaves no pile behind). */
const MAX_SPARE = 8;

/** Folders of commands that have ended, each left empty, by the folder they were made in. */
const spare = new Map<string, string[]>();
let removedAtExit = false;

/**
 * A folder of its own for one command under `parent`: one kept from an earlier command when there
 * is one, else a new one. Making and removing a folder costs a system call each, about 0.2 and 0.5 ms
 * on ext4 mounted with `discard`, which between the rounds of a turn is as much as the rest of a round's work.
 */
export function takeScratch(parent: string): string {
  const kept = spare.get(parent)?.pop();
  if (kept !== undefined) return kept;
  if (!removedAtExit) {
    removedAtExit = true;
    process.once("exit", removeSpare);
  }
  return mkdtempSync(join(parent, "miniclaw-cmd-"));
}

/**
 * Gives back the folder of a command that has ended. Kept for the next command when the command
 * left it empty (nearly always); else removed with what it holds (`sort` spills, a command killed
 * at its timeout), off the event loop, so no run leaves files for the next.
 */
export async function returnScratch(parent: string, dir: string): Promise<void> {
  let left: string[];
  try {
    left = readdirSync(dir);
  } catch {
    left = ["(unreadable)"];
  }
  const kept = spare.get(parent) ?? [];
  if (left.length === 0 && kept.length < MAX_SPARE) {
    kept.push(dir);
    spare.set(parent, kept);
    return;
  }
  await rm(dir, { recursive: true, force: true });
}

/** At exit, the kept folders go (they are empty: one system call each). */
function removeSpare(): void {
  for (const dirs of spare.values()) {
    for (const dir of dirs.splice(0)) {
      try {
        rmdirSync(dir);
      } catch {
        // Already gone, or the system's cleaning of its temporary folder will take it.
      }
    }
  }
}
