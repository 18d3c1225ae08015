// The PostgreSQL session store: one row per record, a turn held by an advisory lock (advisory-lock.ts), appends fenced by an epoch, a steering inbox of rows.
import { randomUUID } from "node:crypto";
import { systemClock, type Clock } from "../deps.js";
import { SessionError } from "../errors.js";
import { describeLockHolder, LockLostError, takeAdvisoryLock, type AdvisoryLock } from "./advisory-lock.js";
import { describeDatabaseError, type Database } from "./database.js";
import { querySessions, readAllRecords, readSessions, readRegion, sessionLocation } from "./pg-session-read.js";
import { agentIdFromKey, headerRecordFor, type HeaderRecord, type SessionRecord, serializeRecord } from "../sessions/records.js";
import type { LoadRegion } from "../sessions/session-file.js";
import { listingOf, recordsToShow, selectForkRecords, type SessionListing } from "../sessions/session-listing.js";
import { viewForLoad, type LoadedSession } from "../sessions/session-handle.js";
import { checkSteerText, type InboxMessage } from "../sessions/inbox.js";
import type { Inbox } from "../types.js";
import { DEFAULT_LOCK_TIMEOUT_MS, type LoadOptions, type SessionBackend, type SessionStoreOptions } from "../sessions/store.js";

/** A session this store holds for a turn: its lock (and the connection under it), the epoch it was given, the next sequence number, whether it wrote. */
type Held = { lock: AdvisoryLock; epoch: string; nextSeq: number; written: boolean };

/**
 * Sessions in `database`, with the file store's contract (`SessionBackend`) for many processes on many hosts. A turn holds its
 * session by a session-level advisory lock on a connection of its own, so a process that dies frees it at once; each lock bumps
 * the session's epoch, and an append writes only while the epoch is still its lock's, so a process that lost its lock (a cut
 * connection, a long pause) can never write into a session another process now holds. `owned`: `close` gives the database back.
 */
export class PgSessionStore implements SessionBackend {
  private readonly held = new Map<string, Held>();
  private readonly clock: Clock;
  private readonly lockTimeoutMs: number;
  private closed = false;

  constructor(
    readonly database: Database,
    private readonly options: Omit<SessionStoreOptions, "fsync"> & { owned?: boolean } = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  }

  locationOf(key: string): string {
    return sessionLocation(this.database, key);
  }

  async exists(key: string): Promise<boolean> {
    const { rows } = await readSessions(this.database, `check session ${key}`, (db) => db.query<{ n: string }>(`SELECT next_seq AS n FROM ${this.t("sessions")} WHERE key = $1`, [key]));
    return rows.length > 0 && Number(rows[0]!.n) > 0;
  }

  async load(key: string, options: LoadOptions = {}): Promise<LoadedSession> {
    const held = this.held.get(key);
    const region = await readRegion(this.database, key, held?.lock.client);
    const file = this.locationOf(key);
    if (region === undefined) return { key, file, exists: false, messages: [], records: [], messageOffset: 0, warnings: [] };
    const mode = options.mode ?? (held ? (held.written ? "in-turn" : "turn-start") : "read");
    const { session, repairs } = viewForLoad(region, { key, file, ts: this.clock.now() }, mode);
    if (repairs.length > 0) await this.append(key, repairs);
    return session;
  }

  async append(key: string, records: SessionRecord[]): Promise<void> {
    if (records.length === 0) return;
    const lines = records.map((record) => serializeRecord(record, this.locationOf(key)));
    const held = this.held.get(key);
    if (held) return this.appendHeld(key, held, records, lines);
    // Never written unheld: the lock is taken for this append alone, so it cannot land inside another process's turn.
    const release = await this.lock(key);
    try {
      await this.appendHeld(key, this.held.get(key)!, records, lines);
    } finally {
      await release();
    }
  }

  async lock(key: string): Promise<() => Promise<void>> {
    if (key === "") throw new SessionError("invalid session key: empty");
    const cannot = (error: unknown): SessionError => new SessionError(`cannot lock session ${key}: ${describeDatabaseError(error)}`, { cause: error });
    const taken = await takeAdvisoryLock(this.database, `session:${key}`, this.lockTimeoutMs).catch((error: unknown) => {
      throw cannot(error);
    });
    if ("busy" in taken) {
      const holder = taken.busy === "this process" ? "another turn of this process" : await describeLockHolder(this.database, `session:${key}`);
      throw new SessionError(`session busy: ${key} is locked by ${holder} (waited ${this.lockTimeoutMs} ms; ${this.locationOf(key)})`);
    }
    const bump = `INSERT INTO ${this.t("sessions")} AS s (key, epoch) VALUES ($1, 1) ON CONFLICT (key) DO UPDATE SET epoch = s.epoch + 1 RETURNING epoch, next_seq`;
    const row = await taken.client.query<{ epoch: string; next_seq: string }>(bump, [key]).then(
      (result) => result.rows[0]!,
      async (error: unknown) => {
        await taken.release();
        throw cannot(error);
      },
    );
    const held: Held = { lock: taken, epoch: row.epoch, nextSeq: Number(row.next_seq), written: false };
    this.held.set(key, held);
    return async () => {
      if (this.held.get(key) === held) this.held.delete(key);
      await taken.release();
    };
  }

  async create(key: string, agentId: string = agentIdFromKey(key)): Promise<HeaderRecord> {
    const header = headerRecordFor(key, agentId, this.clock.now());
    await this.withNew(key, () => this.append(key, [header]));
    return header;
  }

  async list(): Promise<SessionListing[]> {
    const sql = `SELECT key, updated_at AS updated FROM ${this.t("sessions")} WHERE next_seq > 0 ORDER BY key`;
    const { rows } = await readSessions(this.database, "list sessions", (db) => db.query<{ key: string; updated: Date }>(sql));
    // Each session's region is one query: as many at once as the pool holds, not one after another.
    const batch = this.database.config.poolSize;
    const regions: Array<LoadRegion | undefined> = [];
    for (let i = 0; i < rows.length; i += batch) regions.push(...(await Promise.all(rows.slice(i, i + batch).map((row) => readRegion(this.database, row.key)))));
    return rows
      .flatMap((row, i) => {
        const region = regions[i];
        return region ? [listingOf(row.key, this.warned(region, row.key), this.locationOf(row.key), this.clock.now(), row.updated.getTime())] : [];
      })
      .sort((a, b) => b.lastActivity - a.lastActivity || a.key.localeCompare(b.key));
  }

  async show(key: string, options: { all?: boolean } = {}): Promise<SessionRecord[]> {
    if (options.all === true) return this.warned(await readAllRecords(this.database, key), key).records;
    return recordsToShow(this.warned(await readRegion(this.database, key), key));
  }

  async fork(fromKey: string, toKey: string, options: { upToMessageId?: string } = {}): Promise<LoadedSession> {
    const source = await this.show(fromKey, { all: true });
    const { agentId, records } = selectForkRecords(source, this.locationOf(fromKey), fromKey, options.upToMessageId);
    return this.withNew(toKey, async () => {
      await this.append(toKey, [headerRecordFor(toKey, agentId, this.clock.now(), fromKey), ...records]);
      return this.load(toKey, { mode: "turn-start" });
    });
  }

  async addSteer(key: string, text: string): Promise<string> {
    checkSteerText(key, text);
    const id = randomUUID();
    const sql = `INSERT INTO ${this.t("session_inbox")} (session_key, id, ts, text) VALUES ($1, $2, $3, $4)`;
    await querySessions(this.database, `add to the steering inbox of ${key}`, (db) => db.query(sql, [key, id, this.clock.now(), text]));
    return id;
  }

  inbox(key: string): Inbox {
    // Each message is handed once per inbox; `delivered` deletes its row, so no inbox anywhere hands it again. A crash between
    // the session record and `delivered` hands it once more to the next turn, which drops what the session already holds.
    const taken = new Set<string>();
    return {
      take: async () => {
        const sql = `SELECT id, text FROM ${this.t("session_inbox")} WHERE session_key = $1 ORDER BY seq`;
        const { rows } = await readSessions(this.database, `read the steering inbox of ${key}`, (db) => db.query<InboxMessage>(sql, [key]));
        const fresh = rows.filter((row) => !taken.has(row.id));
        for (const row of fresh) taken.add(row.id);
        return fresh.map(({ id, text }) => ({ id, text }));
      },
      delivered: async (ids) => {
        if (ids.length === 0) return;
        for (const id of ids) taken.add(id);
        const sql = `DELETE FROM ${this.t("session_inbox")} WHERE session_key = $1 AND id = ANY($2::text[])`;
        await querySessions(this.database, `mark steering delivered for ${key}`, (db) => db.query(sql, [key, ids]));
      },
    };
  }

  /** Gives back the database when this store opened it (`owned`); a store given a database leaves it to its giver. Idempotent. */
  async close(): Promise<void> {
    if (!this.options.owned || this.closed) return;
    this.closed = true;
    await this.database.close();
  }

  /** `fn` while this store holds `key`, a session that does not exist yet; throws SessionError when it does. */
  private async withNew<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const release = await this.lock(key);
    try {
      if (this.held.get(key)!.nextSeq > 0) throw new SessionError(`session ${key} already exists (${this.locationOf(key)})`);
      return await fn();
    } finally {
      await release();
    }
  }

  /** `read` with its warnings told; throws SessionError when there is no such session. */
  private warned<T extends { warnings: string[] }>(read: T | undefined, key: string): T {
    if (read === undefined) throw new SessionError(`no session ${key} (${this.locationOf(key)})`);
    read.warnings.forEach((warning) => this.options.onWarning?.(warning));
    return read;
  }

  /**
   * One statement, so one transaction: moves `next_seq` on only while the epoch is still ours (the row lock orders it against a
   * takeover's epoch bump), and inserts the records numbered from there. No row updated means another process took the session:
   * nothing is written.
   */
  private async appendHeld(key: string, held: Held, records: SessionRecord[], lines: string[]): Promise<void> {
    const where = this.locationOf(key);
    const lost = (): SessionError => new SessionError(`cannot append to session ${where}: the connection holding its lock was lost (${describeDatabaseError(held.lock.lost.reason)}); nothing was written`);
    if (held.lock.lost.aborted) throw lost();
    if (held.nextSeq === 0 && records[0]?.type !== "session") {
      const header = headerRecordFor(key, agentIdFromKey(key), this.clock.now());
      [records, lines] = [[header, ...records], [serializeRecord(header, where), ...lines]];
    }
    const sql = `WITH s AS (UPDATE ${this.t("sessions")} SET next_seq = next_seq + $3, updated_at = now() WHERE key = $1 AND epoch = $2 RETURNING next_seq - $3 AS first)
      INSERT INTO ${this.t("session_records")} (session_key, seq, id, type, record)
      SELECT $1, s.first + r.ord - 1, r.id, r.type, r.record FROM s, unnest($4::text[], $5::text[], $6::json[]) WITH ORDINALITY AS r(id, type, record, ord)`;
    const ids = records.map((record) => ("id" in record && typeof record.id === "string" ? record.id : null));
    const inserted = await held.lock.client.query(sql, [key, held.epoch, records.length, ids, records.map((r) => r.type), lines]).then(
      (result) => result.rowCount ?? 0,
      (error: unknown) => {
        throw error instanceof LockLostError ? lost() : new SessionError(`cannot append to session ${where}: ${describeDatabaseError(error)}`, { cause: error });
      },
    );
    if (inserted === 0) throw new SessionError(`cannot append to session ${where}: another process has taken over its lock since this one took it; nothing was written`);
    held.nextSeq += records.length;
    held.written = true;
  }

  private t(name: string): string {
    return this.database.table(name);
  }
}
