// Temp folders of the tests: made where they always were (directly in the system temp folder, by mkdtemp, mode 0700) and
// recorded, so that temp-dir-cleanup.ts (a setup file of every test file) removes them once the file that made them is done.
import { mkdtempSync } from "node:fs";
import { chmod, lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * What the running test file made. Module state on purpose: with `isolate: false` a worker keeps this module from one file
 * to the next and runs its files one after another, so the set holds one file's paths until the cleanup empties it.
 */
const made = new Set<string>();

/** A fresh folder `parent/prefixXXXXXX` (`parent` defaults to os.tmpdir()), removed after the test file. */
export async function tempDir(prefix: string, parent: string = tmpdir()): Promise<string> {
  return removeAfterFile(await mkdtemp(join(parent, prefix)));
}

/** `tempDir`, synchronously: for folders made at a test file's top level or in a synchronous helper. */
export function tempDirSync(prefix: string, parent: string = tmpdir()): string {
  return removeAfterFile(mkdtempSync(join(parent, prefix)));
}

/** Records a path a test made itself beside its temp folder (a sibling folder or link), to be removed with them; returns it. */
export function removeAfterFile(path: string): string {
  made.add(path);
  return path;
}

/**
 * Removes every recorded path (a link itself, never its target) and forgets them. Never throws: a folder a test left
 * unwritable is made writable and tried once more; what still resists stays, silently, as a leftover is no test failure.
 */
export async function removeTempDirs(): Promise<void> {
  const paths = [...made];
  made.clear();
  await Promise.all(paths.map(removeQuietly));
}

async function removeQuietly(path: string): Promise<void> {
  const remove = () => rm(path, { recursive: true, force: true, maxRetries: 2 });
  if (await remove().then(() => true, () => false)) return;
  await makeWritable(path).catch(() => undefined);
  await remove().catch(() => undefined);
}

/** Gives the owner full access to `dir` and every folder below it (links not followed), so their entries can be removed. */
async function makeWritable(dir: string): Promise<void> {
  if (!(await lstat(dir)).isDirectory()) return;
  await chmod(dir, 0o700);
  const entries = await readdir(dir, { withFileTypes: true });
  await Promise.all(entries.filter((e) => e.isDirectory()).map((e) => makeWritable(join(dir, e.name)).catch(() => undefined)));
}
