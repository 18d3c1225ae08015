// What a session backend does, and one turn at a time per session: the file lock plus whether the turn has written yet.
import { type Clock, systemClock } from "../deps.js";
import { SessionError } from "../errors.js";
import { acquireFileLock, type FileLockOptions, isFileLockHeld } from "../fs/file-lock.js";
import type { Inbox } from "../types.js";
import type { SessionInboxOptions } from "./inbox.js";
import type { HeaderRecord, SessionRecord } from "./records.js";
import type { LoadedSession, LoadMode } from "./session-handle.js";
import type { SessionListing } from "./session-listing.js";

/** Waiting for a busy session gives up after this long, by default. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** `mode` defaults to `turn-start` when this process holds the lock and has not written since, `in-turn` when it has, else `read`. */
export interface LoadOptions {
  mode?: LoadMode;
}

/** What the loop needs of a session store; `SessionStore` is the file-backed one. */
export interface SessionStorage {
  /** Reads the session from its last compaction on, repaired (see LoadedSession); never throws for damaged lines. */
  load(key: string, options?: LoadOptions): Promise<LoadedSession>;
  /** Appends records, each as one whole line, all in one write; writes the header first for a new file. */
  append(key: string, records: SessionRecord[]): Promise<void>;
  /** Holds the session for one turn; resolves to a release function. Throws SessionError when busy too long. */
  lock(key: string): Promise<() => Promise<void>>;
}

/** Everything a session backend does; `SessionStore` (files) and `PgSessionStore` (PostgreSQL) implement it. */
export interface SessionBackend extends SessionStorage {
  /** True when the session has records. */
  exists(key: string): Promise<boolean>;
  /** Creates an empty session (its header only). Throws SessionError when it exists already. */
  create(key: string, agentId?: string): Promise<HeaderRecord>;
  /** Every session, most recent activity first. */
  list(): Promise<SessionListing[]>;
  /** The records to display (header, last compaction, what follows), or with `all` every record. Throws SessionError when missing. */
  show(key: string, options?: { all?: boolean }): Promise<SessionRecord[]>;
  /** Copies a session (up to a message) under a new key; resolves to the copy loaded. Throws SessionError. */
  fork(fromKey: string, toKey: string, options?: { upToMessageId?: string }): Promise<LoadedSession>;
  /** Where a session lives, for messages: its file, or `postgres:<schema>/<key>`. */
  locationOf(key: string): string;
  /** Stores a steering message in the session's inbox for the turn holding it (any process) or its next; resolves to its id. Throws SessionError. */
  addSteer(key: string, text: string): Promise<string>;
  /** The session's durable inbox, as a turn's `inbox` option. */
  inbox(key: string, options?: SessionInboxOptions): Inbox;
  /** Releases what the backend holds (a database's connections); never throws. */
  close(): Promise<void>;
}

/**
 * `clock` stamps headers and repairs (locks wait in real time), `lockTimeoutMs` bounds the wait (DEFAULT_LOCK_TIMEOUT_MS);
 * `onWarning` (must not throw) hears `list`, `show`, `fork`; `fsync` after each append survives power loss (default false).
 */
export interface SessionStoreOptions {
  clock?: Clock;
  lockTimeoutMs?: number;
  onWarning?: (message: string) => void;
  fsync?: boolean;
}

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

/** Sessions-folder lock options (SessionError "<label> busy: <subject> ..."), on the system clock whatever the store's: other processes live in real time. */
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
