// What a session backend does: the loop's SessionStorage, and what the CLI, the REPL and cron need besides.
import type { Clock } from "../deps.js";
import type { Inbox } from "../types.js";
import type { SessionInboxOptions } from "./inbox.js";
import type { SessionListing } from "./session-listing.js";
import type { HeaderRecord, SessionRecord } from "./records.js";
import type { LoadedSession, LoadMode } from "./session-handle.js";

/** Waiting for a busy session gives up after this long, by default. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** Options of `SessionStorage.load`. */
export interface LoadOptions {
  /** Default: `turn-start` when this process holds the lock and has not written since taking it, `in-turn` when it has, else `read`. */
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
 * Options of `SessionStore`: `clock` stamps header and repair records (a lock is waited for in real time); `lockTimeoutMs`
 * bounds that wait (default DEFAULT_LOCK_TIMEOUT_MS); `onWarning` (must not throw) hears `list`, `show` and `fork`; `fsync`
 * after each append survives power loss, not only a crash (default false).
 */
export interface SessionStoreOptions {
  clock?: Clock;
  lockTimeoutMs?: number;
  onWarning?: (message: string) => void;
  fsync?: boolean;
}
