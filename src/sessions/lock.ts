// One turn at a time per session: the shared file lock (fs/file-lock.ts) plus whether this turn has written yet.
import { systemClock } from "../deps.js";
import { SessionError } from "../errors.js";
import { acquireFileLock, isFileLockHeld, type FileLockOptions } from "../fs/file-lock.js";
import type { LoadMode } from "./session-handle.js";

/** Lock paths held by this process whose session has been written since the lock was taken. */
const written = new Set<string>();

/** Notes that the session of `lockPath` was written to; counts only while this process holds its lock. */
export function noteWrite(lockPath: string): void {
  if (isFileLockHeld(lockPath)) written.add(lockPath);
}

/** The load mode when the caller names none: `read` without the lock; with it, `in-turn` once this process has written, else `turn-start`. */
export function defaultLoadMode(lockPath: string): LoadMode {
  if (!isFileLockHeld(lockPath)) return "read";
  return written.has(lockPath) ? "in-turn" : "turn-start";
}

/**
 * The options of a lock of the sessions folder ("<label> busy: <subject> ...", SessionErrors). The wait is measured on
 * the system clock whatever clock a store was given: other processes live in real time, and a test's frozen clock must
 * not spin or expire it.
 */
export function sessionLockOptions(label: string, subject: string, timeoutMs: number): FileLockOptions {
  const makeError = (message: string, cause?: unknown): Error => new SessionError(message, cause === undefined ? undefined : { cause });
  return { timeoutMs, clock: systemClock, label, subject, makeError };
}

/** Takes the session's lock (see `acquireFileLock`) within `timeoutMs`; throws SessionError("session busy: <key> ...") naming the holder. */
export async function acquireSessionLock(lockPath: string, key: string, timeoutMs: number): Promise<() => Promise<void>> {
  const release = await acquireFileLock(lockPath, { ...sessionLockOptions("session", key, timeoutMs), inProcessHolder: "another turn" });
  written.delete(lockPath);
  let released = false;
  return async () => {
    // Only the first call: a later one must not clear the flag of the next holder.
    if (!released) written.delete(lockPath);
    released = true;
    await release();
  };
}
