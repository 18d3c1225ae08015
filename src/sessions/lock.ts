// One turn at a time per session: the shared file lock (fs/file-lock.ts) plus whether this turn has written yet.
import type { Clock } from "../deps.js";
import { SessionError } from "../errors.js";
import { acquireFileLock, isFileLockHeld } from "../fs/file-lock.js";
import type { LoadMode } from "./session-view.js";

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

/** Takes the session's lock (see `acquireFileLock`) within `timeoutMs`; throws SessionError("session busy: <key> ...") naming the holder. */
export async function acquireSessionLock(lockPath: string, key: string, timeoutMs: number, clock: Clock): Promise<() => Promise<void>> {
  const makeError = (message: string, cause?: unknown): Error => new SessionError(message, cause === undefined ? undefined : { cause });
  const release = await acquireFileLock(lockPath, { timeoutMs, clock, label: "session", subject: key, inProcessHolder: "another turn", makeError });
  written.delete(lockPath);
  let released = false;
  return async () => {
    // Only the first call: a later one must not clear the flag of the next holder.
    if (!released) written.delete(lockPath);
    released = true;
    await release();
  };
}
