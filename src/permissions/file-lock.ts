// A short-lived lock file (O_EXCL create) for read-merge-write cycles shared by several processes.
import { open, stat, unlink } from "node:fs/promises";
import { systemClock } from "../deps.js";
import type { Clock } from "../deps.js";

/** A lock older than this was left by a crashed holder: the cycles it guards take milliseconds. */
const STALE_LOCK_MS = 10_000;
const RETRY_MIN_MS = 2;
const RETRY_MAX_MS = 20;

/** Options of `withFileLock`. */
export interface FileLockOptions {
  timeoutMs?: number;
  clock?: Clock;
}

/**
 * Runs `work` while holding `lockPath` (created with O_EXCL, holding our pid),
 * then removes it. Waits with jittered retries up to `timeoutMs` (default 5 s);
 * a lock file older than ten seconds is taken to be abandoned and removed.
 * Throws when the wait runs out, naming the lock file.
 */
export async function withFileLock<T>(lockPath: string, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const { timeoutMs = 5_000, clock = systemClock } = options;
  const deadline = clock.now() + timeoutMs;
  while (!(await tryCreate(lockPath))) {
    await removeIfStale(lockPath);
    if (clock.now() > deadline) throw new Error(`could not lock ${lockPath} within ${timeoutMs} ms (another process holds it)`);
    await clock.sleep(RETRY_MIN_MS + Math.random() * (RETRY_MAX_MS - RETRY_MIN_MS));
  }
  try {
    return await work();
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}

async function tryCreate(lockPath: string): Promise<boolean> {
  try {
    const handle = await open(lockPath, "wx");
    await handle.writeFile(String(process.pid)).finally(() => handle.close());
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

async function removeIfStale(lockPath: string): Promise<void> {
  const info = await stat(lockPath).catch(() => null);
  // File times are wall-clock times, so staleness is judged against Date.now(), not the injected clock.
  if (info !== null && Date.now() - info.mtimeMs > STALE_LOCK_MS) await unlink(lockPath).catch(() => undefined);
}
