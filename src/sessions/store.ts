// The session store: one append-only JSONL file per key, repaired on load, one turn at a time per session.
import { closeSync, constants, fdatasync, mkdirSync, readSync, writeSync } from "node:fs";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { join, resolve } from "node:path";
import { systemClock, type Clock } from "../deps.js";
import { SessionError } from "../errors.js";
import { resolveSessionFileName } from "./session-path.js";
import { serializeRecord } from "./line-parse.js";
import { acquireSessionLock, hasWrittenUnderLock, isLockHeld, noteWrite } from "./lock.js";
import { agentIdFromKey, headerRecordFor, newRecordId, type HeaderRecord, type SessionRecord } from "./records.js";
import { readLoadRegionFromFile } from "./session-tail.js";
import { forkRecords, listSessions, readAllRecords, type SessionListing } from "./session-listing.js";
import { recordsToShow, viewForLoad, type LoadedSession, type LoadMode } from "./session-view.js";
import { addSteer, SessionInbox, type SessionInboxOptions } from "./inbox.js";
import type { Inbox } from "../types.js";
import { openRegularSync, readRegularText } from "../fs/regular-file.js";

export type { LoadedSession } from "./session-view.js";
export type { SessionListing } from "./session-listing.js";

/** Waiting for a busy session gives up after this long, by default. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

export type { LoadMode } from "./session-view.js";

/** Options of `SessionStorage.load`. */
export interface LoadOptions {
  /**
   * Default: `turn-start` when this process holds the session's lock and has not
   * written to it since taking it (the first load of a turn), `in-turn` when it
   * holds the lock and has written (a reload during the turn, e.g. after a
   * compaction), `read` when it does not hold the lock.
   */
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

/**
 * Everything a session backend does: the loop's `SessionStorage`, and what the CLI, the REPL and
 * cron need besides. `SessionStore` (files) and `PgSessionStore` (PostgreSQL) implement it.
 */
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
  /**
   * Adds a steering message to the session's durable inbox and resolves to its id once stored: the
   * turn holding the session (in any process) takes it before its next request, or its next turn does.
   * Throws SessionError for empty or oversized text or a failed write.
   */
  addSteer(key: string, text: string): Promise<string>;
  /** The session's durable inbox, as a turn's `inbox` option. */
  inbox(key: string, options?: SessionInboxOptions): Inbox;
  /** Releases what the backend holds (a database's connections); never throws. */
  close(): Promise<void>;
}

/** Options of `SessionStore`. */
export interface SessionStoreOptions {
  /** Stamps header and repair records (`ts`); waiting for a lock uses real time. */
  clock?: Clock;
  /** How long `lock` waits for a busy session before throwing (default DEFAULT_LOCK_TIMEOUT_MS; real time). */
  lockTimeoutMs?: number;
  /** Receives warnings of `list`, `show` and `fork` (load returns its own in `warnings`). Must not throw. */
  onWarning?: (message: string) => void;
  /** fsync after each append: survives power loss, not only a crash of the process (default false). */
  fsync?: boolean;
}

/**
 * The file-backed session store: `<dir>/<encoded key>.jsonl`, one record per line,
 * appended and never rewritten. Safe to use from several stores and processes at
 * once: appends are single O_APPEND writes, and `lock` serializes turns.
 */
export class SessionStore implements SessionBackend {
  readonly dir: string;
  private readonly clock: Clock;
  private readonly lockTimeoutMs: number;
  private readonly onWarning: (message: string) => void;
  private readonly fsync: boolean;
  /** Files this store appended to whole: their tail is known to end a line, so later appends skip the check. */
  private readonly knownWhole = new Set<string>();
  /** Append descriptors kept open while this store holds a session's lock (closed on release). */
  private readonly handles = new Map<string, number>();
  private dirReady = false;

  constructor(dir: string, options: SessionStoreOptions = {}) {
    this.dir = resolve(dir);
    this.clock = options.clock ?? systemClock;
    this.lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.onWarning = options.onWarning ?? (() => {});
    this.fsync = options.fsync ?? false;
  }

  /** The file of a key's session. Throws SessionError for an invalid (empty) key. */
  fileFor(key: string): string {
    return join(this.dir, resolveSessionFileName(this.dir, key));
  }

  locationOf(key: string): string {
    return this.fileFor(key);
  }

  addSteer(key: string, text: string): Promise<string> {
    return addSteer(this.dir, key, text, this.clock);
  }

  inbox(key: string, options: SessionInboxOptions = {}): Inbox {
    return new SessionInbox(this.dir, key, options);
  }

  /** Nothing to release: files are opened per use. */
  async close(): Promise<void> {}

  /** True when the session's file exists. */
  async exists(key: string): Promise<boolean> {
    return stat(this.fileFor(key)).then(() => true, () => false);
  }

  /**
   * Reads the session from its last compaction on (only the file's tail is read),
   * skipping damaged lines with a warning each and repairing the message sequence
   * (see LoadMode for the end of the file). A missing file loads as an empty
   * session with `exists: false`. Throws SessionError only when the file cannot
   * be read at all (or a repair cannot be appended).
   */
  async load(key: string, options: LoadOptions = {}): Promise<LoadedSession> {
    const file = this.fileFor(key);
    const region = await readLoadRegionFromFile(file).catch((error: Error) => {
      throw new SessionError(`cannot read session ${file}: ${error.message}`, { cause: error });
    });
    if (region === undefined) return { key, file, exists: false, messages: [], records: [], messageOffset: 0, warnings: [] };
    const lockPath = lockPathOf(file);
    const mode = options.mode ?? (isLockHeld(lockPath) ? (hasWrittenUnderLock(lockPath) ? "in-turn" : "turn-start") : "read");
    const { session, repairs } = viewForLoad(region, { key, file, ts: this.clock.now() }, mode);
    if (repairs.length > 0) await this.append(key, repairs);
    return session;
  }

  /**
   * Appends `records` in one write of whole lines. A new (or empty) file gets a
   * header record first unless `records` starts with one. When the file does not
   * end with a newline (a writer died mid-line), a newline goes first, so the new
   * record is never fused onto the torn line. Throws SessionError for an invalid
   * record (nothing is written) or a failed write.
   */
  async append(key: string, records: SessionRecord[]): Promise<void> {
    if (records.length === 0) return;
    const file = this.fileFor(key);
    const body = records.map((record) => serialize(record, file)).join("");
    try {
      if (!this.dirReady) mkdirSync(this.dir, { recursive: true });
      this.dirReady = true;
      if (this.knownWhole.has(file) && !this.fsync && isLockHeld(lockPathOf(file))) {
        // Our own last append ended a line and, while we hold the lock, nobody else wrote since: one plain append suffices.
        // Without the lock another writer (or a crash's truncation) may have left a torn tail: the careful append checks it.
        this.appendPlain(file, body);
      } else {
        const fd = this.appendChecked(key, file, records, body);
        try {
          if (this.fsync) await fdatasyncAsync(fd);
        } finally {
          closeSync(fd);
        }
      }
      this.knownWhole.add(file);
      noteWrite(lockPathOf(file));
    } catch (error) {
      this.knownWhole.delete(file);
      throw new SessionError(`cannot append to session ${file}: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * One O_APPEND write, through the descriptor held for the turn when this store holds the lock. File
   * system calls on the session are synchronous: opening it, a few hundred bytes into the page cache,
   * take microseconds, where each trip through libuv's thread pool costs about 0.3 ms of waiting.
   */
  private appendPlain(file: string, body: string): void {
    let fd = this.handles.get(file);
    if (fd === undefined) {
      fd = openRegularSync(file, constants.O_WRONLY | APPEND_FLAGS, 0o666).fd;
      this.handles.set(file, fd);
    }
    writeWhole(fd, body);
  }

  /**
   * The careful append: a header for a new file, a newline after a torn tail, then the records, in one
   * write. Returns the open descriptor, for the caller to flush to the disk (the `fsync` option, on the
   * thread pool, as it waits for the device) and close.
   */
  private appendChecked(key: string, file: string, records: SessionRecord[], body: string): number {
    // As "a+": a FIFO in the file's place is refused, not written until it fills and hangs.
    const { fd, size } = openRegularSync(file, constants.O_RDWR | APPEND_FLAGS, 0o666);
    try {
      let prefix = "";
      if (size === 0 && records[0]?.type !== "session") prefix = serialize(headerRecordFor(key, agentIdFromKey(key), this.clock.now()), file);
      else if (size > 0 && !endsWithNewline(fd, size)) prefix = "\n";
      writeWhole(fd, prefix + body);
      return fd;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * Holds the session for one turn: waits for earlier turns of this process, then
   * for the lock file shared with other processes (a dead owner's is taken over at
   * once), at most `lockTimeoutMs` in all; resolves to the release function. Throws
   * SessionError("session busy: ...") naming the holder when the wait runs out.
   */
  async lock(key: string): Promise<() => Promise<void>> {
    const file = this.fileFor(key);
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch (error) {
      throw new SessionError(`cannot use the sessions folder ${this.dir}: ${(error as Error).message}`, { cause: error });
    }
    this.dirReady = true;
    // Another process may have written (or died mid-line) since our last turn: check the tail again once.
    this.knownWhole.delete(file);
    // Other processes live in real time: waiting for them is measured on the system clock, whatever clock
    // the store was given for its records (a test's frozen or instant clock must not spin or expire the wait).
    const release = await acquireSessionLock(lockPathOf(file), { key, timeoutMs: this.lockTimeoutMs, clock: systemClock });
    return async () => {
      const fd = this.handles.get(file);
      this.handles.delete(file);
      if (fd !== undefined) closeQuietly(fd);
      await release();
    };
  }

  /** Creates an empty session (its header only). Throws SessionError when it exists already. */
  async create(key: string, agentId: string = agentIdFromKey(key)): Promise<HeaderRecord> {
    const file = this.fileFor(key);
    const header = headerRecordFor(key, agentId, this.clock.now());
    await mkdir(this.dir, { recursive: true });
    await writeFile(file, serialize(header, file), { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
      throw new SessionError(error.code === "EEXIST" ? `session ${key} already exists (${file})` : `cannot create session ${file}: ${error.message}`, { cause: error });
    });
    return header;
  }

  /**
   * Every session of the folder, most recent first: key (from the header, or the
   * file name), agent, messages and estimated tokens of its loaded view, last
   * activity. Damaged lines and stray files are reported through `onWarning`.
   */
  async list(): Promise<SessionListing[]> {
    return listSessions(this.dir, { onWarning: this.onWarning, clock: this.clock });
  }

  /**
   * The records of a session, for display: header, last compaction, and the
   * messages it keeps and after it, each structured answer after its message; with `all`, every readable line of the file in
   * order. Throws SessionError when the session does not exist.
   */
  async show(key: string, options: { all?: boolean } = {}): Promise<SessionRecord[]> {
    const file = this.fileFor(key);
    const missing = (): SessionError => new SessionError(`no session ${key} (${file})`);
    if (options.all === true) {
      const text = await readText(file);
      if (text === undefined) throw missing();
      return readAllRecords(text, file, this.onWarning);
    }
    const region = await readLoadRegionFromFile(file).catch((error: Error) => {
      throw new SessionError(`cannot read session ${file}: ${error.message}`, { cause: error });
    });
    if (region === undefined) throw missing();
    region.warnings.forEach((warning) => this.onWarning(warning));
    return recordsToShow(region);
  }

  /**
   * Copies `fromKey`'s records, up to and including message `upToMessageId` (all
   * when absent), to a new session `toKey` whose header names `forkedFrom`; the
   * copy is then loaded under its lock, which appends any repair its end needs.
   * Throws SessionError when the source or the message is missing or `toKey` exists.
   */
  async fork(fromKey: string, toKey: string, options: { upToMessageId?: string } = {}): Promise<LoadedSession> {
    const fromFile = this.fileFor(fromKey);
    const text = await readText(fromFile);
    if (text === undefined) throw new SessionError(`no session ${fromKey} (${fromFile})`);
    const { agentId, records } = forkRecords(text, fromFile, fromKey, options.upToMessageId, this.onWarning);
    const file = this.fileFor(toKey);
    const release = await this.lock(toKey);
    try {
      const header = headerRecordFor(toKey, agentId, this.clock.now(), fromKey);
      const body = [header, ...records].map((record) => serialize(record, file)).join("");
      await writeFile(file, body, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
        throw new SessionError(error.code === "EEXIST" ? `session ${toKey} already exists (${file})` : `cannot write session ${file}: ${error.message}`, { cause: error });
      });
      return await this.load(toKey, { mode: "turn-start" });
    } finally {
      await release();
    }
  }
}

/** The lock file of a session file. */
export function lockPathOf(file: string): string {
  return `${file}.lock`;
}

/** One record as a whole line of the file. */
function serialize(record: SessionRecord, file: string): string {
  return serializeRecord(record, file) + "\n";
}

/** Writes all of `text` at the end of an O_APPEND descriptor; a short write (a full disk) goes on until it fails. */
function writeWhole(fd: number, text: string): void {
  const bytes = Buffer.from(text, "utf8");
  for (let written = 0; written < bytes.length; ) {
    const n = writeSync(fd, bytes, written, bytes.length - written);
    if (n === 0) throw new Error(`wrote ${written} of ${bytes.length} bytes, then nothing`);
    written += n;
  }
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readRegularText(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new SessionError(`cannot read session ${file}: ${(error as Error).message}`, { cause: error });
  }
}

function endsWithNewline(fd: number, size: number): boolean {
  const buffer = Buffer.alloc(1);
  readSync(fd, buffer, 0, 1, size - 1);
  return buffer[0] === 0x0a;
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed or never valid: nothing is left to release.
  }
}

const fdatasyncAsync = promisify(fdatasync);

// "a", less the access mode (openRegularSync adds O_NONBLOCK: opening a FIFO that no one reads fails instead of waiting).
const APPEND_FLAGS = constants.O_APPEND | constants.O_CREAT;
