// One turn at a time per session: the shared file lock (fs/file-lock.ts) plus whether this turn has written yet.
import type { Clock } from "../deps.js";
import { SessionError } from "../errors.js";
import { acquireFileLock, isFileLockHeld } from "../fs/file-lock.js";

/** Options of `acquireSessionLock`. */
export interface AcquireOptions {
  /** Used in the "session busy" message. */
  key: string;
  timeoutMs: number;
  clock: Clock;
}

/** Lock paths held by this process whose session has been written since the lock was taken. */
const written = new Set<string>();

/** True while this process holds the lock file at `lockPath`. */
export function isLockHeld(lockPath: string): boolean {
  return isFileLockHeld(lockPath);
}

/** Notes that the session of `lockPath` was written to; counts only while this process holds its lock. */
export function noteWrite(lockPath: string): void {
  if (isFileLockHeld(lockPath)) written.add(lockPath);
}

/**
 * True when this process holds the lock of `lockPath` and has written to the
 * session since taking it: a turn is under way, so the end of the file is that
 * turn's own state, not the remains of an interrupted one.
 */
export function hasWrittenUnderLock(lockPath: string): boolean {
  return isFileLockHeld(lockPath) && written.has(lockPath);
}

/**
 * Takes the session's lock (see `acquireFileLock`: in-process queue, then the lock
 * file, a dead owner's taken over at once), at most `timeoutMs` in all; resolves to
 * an idempotent release function. Throws SessionError("session busy: <key> ...")
 * naming the holder when the wait runs out.
 */
export async function acquireSessionLock(lockPath: string, options: AcquireOptions): Promise<() => Promise<void>> {
  const release = await acquireFileLock(lockPath, {
    timeoutMs: options.timeoutMs,
    clock: options.clock,
    label: "session",
    subject: options.key,
    inProcessHolder: "another turn",
    makeError: (message, cause) => new SessionError(message, cause === undefined ? undefined : { cause }),
  });
  written.delete(lockPath);
  let released = false;
  return async () => {
    // Only the first call: a later one must not clear the flag of the next holder.
    if (!released) written.delete(lockPath);
    released = true;
    await release();
  };
}
