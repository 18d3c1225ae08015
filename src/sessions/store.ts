// The session store: one append-only JSONL file per key, repaired on load, one turn at a time per session.
import { close, constants, mkdirSync, writeFileSync } from "node:fs";
import { mkdir, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { systemClock } from "../deps.js";
import { ifMissing, SessionError } from "../errors.js";
import { isFileLockHeld } from "../fs/file-lock.js";
import { openRegularSync, readRegularText, appendLines, APPEND_FLAGS } from "../fs/regular-file.js";
import type { Inbox } from "../types.js";
import { DEFAULT_LOCK_TIMEOUT_MS, type LoadOptions, type SessionBackend, type SessionStoreOptions, acquireSessionLock, defaultLoadMode, noteWrite } from "./backend.js";
import { addSteer, SessionInbox, type SessionInboxOptions } from "./inbox.js";
import { agentIdFromKey, headerRecordFor, type HeaderRecord, type SessionRecord, serializeRecord } from "./records.js";
import { parseAllRecords, readLoadRegionFromFile } from "./session-file.js";
import { listSessions, recordsToShow, selectForkRecords, type SessionListing } from "./session-listing.js";
import { resolveSessionFileName } from "./session-path.js";
import { viewForLoad, type LoadedSession } from "./session-handle.js";

export { DEFAULT_LOCK_TIMEOUT_MS, type LoadOptions, type SessionBackend, type SessionStorage, type SessionStoreOptions } from "./backend.js";
export type { LoadedSession, LoadMode } from "./session-handle.js";
export type { SessionListing } from "./session-listing.js";

/** Sessions as `<dir>/<encoded key>.jsonl`, appended, never rewritten; safe across stores and processes (single O_APPEND writes, `lock` per turn). */
export class SessionStore implements SessionBackend {
  readonly dir: string;
  private readonly options: Required<SessionStoreOptions>;
  // Files whose tail our last append ended with a newline, and the append descriptors held while we hold their lock.
  private readonly knownWhole = new Set<string>();
  private readonly handles = new Map<string, number>();
  private dirReady = false;

  constructor(dir: string, options: SessionStoreOptions = {}) {
    this.dir = resolve(dir);
    const { clock = systemClock, lockTimeoutMs = DEFAULT_LOCK_TIMEOUT_MS, onWarning = () => {}, fsync = false } = options;
    this.options = { clock, lockTimeoutMs, onWarning, fsync };
  }

  /** The file of a key's session. Throws SessionError for an invalid (empty) key. */
  fileFor(key: string): string {
    return join(this.dir, resolveSessionFileName(this.dir, key));
  }

  locationOf(key: string): string {
    return this.fileFor(key);
  }

  addSteer(key: string, text: string): Promise<string> {
    return addSteer(this.dir, key, text, this.options.clock);
  }

  inbox(key: string, options: SessionInboxOptions = {}): Inbox {
    return new SessionInbox(this.dir, key, options);
  }

  async close(): Promise<void> {}

  async exists(key: string): Promise<boolean> {
    return stat(this.fileFor(key)).then(() => true, () => false);
  }

  async load(key: string, options: LoadOptions = {}): Promise<LoadedSession> {
    const file = this.fileFor(key);
    const region = await readRegion(file);
    if (region === undefined) return { key, file, exists: false, messages: [], records: [], messageOffset: 0, warnings: [] };
    const { session, repairs } = viewForLoad(region, { key, file, ts: this.options.clock.now() }, options.mode ?? defaultLoadMode(lockPathOf(file)));
    if (repairs.length > 0) await this.append(key, repairs);
    return session;
  }

  async append(key: string, records: SessionRecord[]): Promise<void> {
    if (records.length === 0) return;
    const file = this.fileFor(key);
    const body = records.map((record) => serialize(record, file)).join("");
    try {
      if (!this.dirReady) mkdirSync(this.dir, { recursive: true });
      this.dirReady = true;
      // Our last append ended a line and, while we hold the lock, nobody else wrote since: a plain append suffices.
      if (this.knownWhole.has(file) && !this.options.fsync && isFileLockHeld(lockPathOf(file))) this.appendPlain(file, body);
      else {
        const header = records[0]?.type === "session" ? undefined : () => serialize(headerRecordFor(key, agentIdFromKey(key), this.options.clock.now()), file);
        await appendLines(file, body, { sync: this.options.fsync, header });
      }
      this.knownWhole.add(file);
      noteWrite(lockPathOf(file));
    } catch (error) {
      this.knownWhole.delete(file);
      throw new SessionError(`cannot append to session ${file}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** One O_APPEND write (synchronous: microseconds), through the descriptor held for the turn. */
  private appendPlain(file: string, body: string): void {
    const fd = this.handles.get(file) ?? openRegularSync(file, constants.O_WRONLY | APPEND_FLAGS, 0o666).fd;
    this.handles.set(file, fd);
    writeFileSync(fd, body);
  }

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
    const release = await acquireSessionLock(lockPathOf(file), key, this.options.lockTimeoutMs);
    return async () => {
      const fd = this.handles.get(file);
      this.handles.delete(file);
      // A close that fails (never valid, already closed) leaves nothing to release.
      if (fd !== undefined) close(fd, () => {});
      await release();
    };
  }

  async create(key: string, agentId: string = agentIdFromKey(key)): Promise<HeaderRecord> {
    const header = headerRecordFor(key, agentId, this.options.clock.now());
    await this.writeNew(key, [header], "create");
    return header;
  }

  async list(): Promise<SessionListing[]> {
    return listSessions(this.dir, { onWarning: this.options.onWarning, clock: this.options.clock });
  }

  async show(key: string, options: { all?: boolean } = {}): Promise<SessionRecord[]> {
    const file = this.fileFor(key);
    const region = options.all === true ? undefined : await readRegion(file);
    region?.warnings.forEach((warning) => this.options.onWarning(warning));
    const records = options.all === true ? await this.readAll(file) : region && recordsToShow(region);
    if (records === undefined) throw new SessionError(`no session ${key} (${file})`);
    return records;
  }

  async fork(fromKey: string, toKey: string, options: { upToMessageId?: string } = {}): Promise<LoadedSession> {
    const fromFile = this.fileFor(fromKey);
    const all = await this.readAll(fromFile);
    if (all === undefined) throw new SessionError(`no session ${fromKey} (${fromFile})`);
    const { agentId, records } = selectForkRecords(all, fromFile, fromKey, options.upToMessageId);
    const release = await this.lock(toKey);
    try {
      await this.writeNew(toKey, [headerRecordFor(toKey, agentId, this.options.clock.now(), fromKey), ...records], "write");
      return await this.load(toKey, { mode: "turn-start" });
    } finally {
      await release();
    }
  }

  /** Every readable record of a session file (damaged lines to `onWarning`), or undefined when there is none. */
  private async readAll(file: string): Promise<SessionRecord[] | undefined> {
    const cannot = (error: Error): Error => new SessionError(`cannot read session ${file}: ${error.message}`, { cause: error });
    const text = await readRegularText(file).catch((error: unknown) => ifMissing(error, undefined, cannot));
    if (text === undefined) return undefined;
    const { records, warnings } = parseAllRecords(text, file);
    warnings.forEach((warning) => this.options.onWarning(warning));
    return records;
  }

  /** Writes a new session file whole; throws SessionError when it exists already. */
  private async writeNew(key: string, records: SessionRecord[], verb: string): Promise<void> {
    const file = this.fileFor(key);
    const body = records.map((record) => serialize(record, file)).join("");
    await mkdir(this.dir, { recursive: true });
    await writeFile(file, body, { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
      throw new SessionError(error.code === "EEXIST" ? `session ${key} already exists (${file})` : `cannot ${verb} session ${file}: ${error.message}`, { cause: error });
    });
  }
}

/** The lock file of a session file. */
export function lockPathOf(file: string): string {
  return `${file}.lock`;
}

/** The load region of a session file, or undefined when there is none. Throws SessionError when it cannot be read. */
function readRegion(file: string): ReturnType<typeof readLoadRegionFromFile> {
  return readLoadRegionFromFile(file).catch((error: Error) => {
    throw new SessionError(`cannot read session ${file}: ${error.message}`, { cause: error });
  });
}

function serialize(record: SessionRecord, file: string): string {
  return serializeRecord(record, file) + "\n";
}
