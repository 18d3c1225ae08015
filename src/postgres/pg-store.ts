// The PostgreSQL session store: one row per record, a turn held by an advisory lock on its own connection, appends fenced by an epoch.
import { systemClock, type Clock } from "../deps.js";
import { SessionError } from "../errors.js";
import { CONNECT_TIMEOUT_MS } from "./config.js";
import { describeDatabaseError, isConnectionLost, type Database, type PoolClient, type Queryable } from "./database.js";
import { enterQueue } from "../fs/lock-queue.js";
import { parseRecordLine, serializeRecord } from "../sessions/line-parse.js";
import { agentIdFromKey, headerRecordFor, newRecordId, type CompactionRecord, type HeaderRecord, type SessionRecord } from "../sessions/records.js";
import { keptMissing, regionOfRecords, type LoadRegion } from "../sessions/session-file.js";
import { listingOf, selectForkRecords, type SessionListing } from "../sessions/session-listing.js";
import { recordsToShow, viewForLoad, type LoadedSession } from "../sessions/session-view.js";
import { addPgSteer, PgInbox } from "./pg-inbox.js";
import type { Inbox } from "../types.js";
import { DEFAULT_LOCK_TIMEOUT_MS, type LoadOptions, type SessionBackend, type SessionStoreOptions } from "../sessions/store.js";

/** A session this store holds for a turn: the connection that holds its lock, the epoch it was given, the next sequence number. */
interface Held {
  client: PoolClient;
  epoch: string;
  nextSeq: number;
  written: boolean;
  /** Why the connection is gone, once it is: every later append fails with it. */
  lost?: string;
}

interface Row {
  seq: string;
  line: string;
}

/**
 * Sessions in `database`: the same contract as the file store (`SessionStore`), for many
 * processes on many hosts. A turn holds its session through a session-level advisory lock
 * on a connection of its own, so a process that dies frees it at once; each lock bumps the
 * session's epoch, and an append writes only while the epoch is still the one its lock was
 * given, so a process that lost its lock (a cut connection, a long pause) can never write
 * into a session another process now holds.
 */
export class PgSessionStore implements SessionBackend {
  private readonly clock: Clock;
  private readonly lockTimeoutMs: number;
  private readonly onWarning: (message: string) => void;
  private readonly held = new Map<string, Held>();
  /** This store opened the database (`openSessionBackend`): `close` gives it back. */
  private readonly owned: boolean;
  private closed = false;

  constructor(
    readonly database: Database,
    options: Omit<SessionStoreOptions, "fsync"> & { owned?: boolean } = {},
  ) {
    this.clock = options.clock ?? systemClock;
    this.lockTimeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
    this.onWarning = options.onWarning ?? (() => {});
    this.owned = options.owned ?? false;
  }

  /** Where a session lives, for messages: `postgres:<schema>/<key>`. */
  locationOf(key: string): string {
    return `postgres:${this.database.schema}/${key}`;
  }

  async exists(key: string): Promise<boolean> {
    const { rows } = await this.run(`check session ${key}`, (db) => db.query<{ n: string }>(`SELECT next_seq AS n FROM ${this.t("sessions")} WHERE key = $1`, [key]));
    return rows.length > 0 && Number(rows[0]!.n) > 0;
  }

  async load(key: string, options: LoadOptions = {}): Promise<LoadedSession> {
    const held = this.held.get(key);
    const region = await this.readRegion(key, held?.client);
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
    const deadline = Date.now() + this.lockTimeoutMs;
    // Turns of this process wait in memory, not on a connection each: waiters never use up the turn connections.
    const leaveQueue = await enterQueue(`pg:${this.locationOf(key)}`, deadline, systemClock, () => this.busy(key, "another turn of this process"));
    let client: PoolClient;
    try {
      client = await this.connectForTurn(key, deadline);
    } catch (error) {
      leaveQueue();
      throw error;
    }
    const held: Held = { client, epoch: "0", nextSeq: 0, written: false };
    const onError = (error: Error): void => void (held.lost = describeDatabaseError(error));
    client.on("error", onError);
    try {
      await this.waitForLock(client, key, deadline);
      const { rows } = await client.query<{ epoch: string; next_seq: string }>(
        `INSERT INTO ${this.t("sessions")} AS s (key, epoch) VALUES ($1, 1) ON CONFLICT (key) DO UPDATE SET epoch = s.epoch + 1 RETURNING epoch, next_seq`,
        [key],
      );
      held.epoch = rows[0]!.epoch;
      held.nextSeq = Number(rows[0]!.next_seq);
    } catch (error) {
      client.off("error", onError);
      client.release(true);
      leaveQueue();
      throw error instanceof SessionError ? error : new SessionError(`cannot lock session ${key}: ${describeDatabaseError(error)}`, { cause: error });
    }
    this.held.set(key, held);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (this.held.get(key) === held) this.held.delete(key);
      // A connection that cannot unlock is destroyed instead: the server frees the lock when it closes.
      const unlocked = held.lost === undefined && (await client.query("SELECT pg_advisory_unlock($1::bigint)", [this.lockKey(key)]).then(() => true, () => false));
      client.off("error", onError);
      client.release(!unlocked);
      leaveQueue();
    };
  }

  async create(key: string, agentId: string = agentIdFromKey(key)): Promise<HeaderRecord> {
    const header = headerRecordFor(key, agentId, this.clock.now());
    const release = await this.lock(key);
    try {
      if (this.held.get(key)!.nextSeq > 0) throw new SessionError(`session ${key} already exists (${this.locationOf(key)})`);
      await this.append(key, [header]);
      return header;
    } finally {
      await release();
    }
  }

  async list(): Promise<SessionListing[]> {
    const { rows } = await this.run("list sessions", (db) =>
      db.query<{ key: string; updated: Date }>(`SELECT key, updated_at AS updated FROM ${this.t("sessions")} WHERE next_seq > 0 ORDER BY key`),
    );
    // Each session's region is one query: as many at once as the pool holds, not one after another.
    const batch = this.database.config.poolSize;
    const regions: Array<LoadRegion | undefined> = [];
    for (let i = 0; i < rows.length; i += batch) regions.push(...(await Promise.all(rows.slice(i, i + batch).map((row) => this.readRegion(row.key)))));
    const listings: SessionListing[] = [];
    rows.forEach((row, i) => {
      const region = regions[i];
      if (!region) return;
      region.warnings.forEach((warning) => this.onWarning(warning));
      listings.push(listingOf(row.key, region, this.locationOf(row.key), this.clock.now(), row.updated.getTime()));
    });
    return listings.sort((a, b) => b.lastActivity - a.lastActivity || a.key.localeCompare(b.key));
  }

  async show(key: string, options: { all?: boolean } = {}): Promise<SessionRecord[]> {
    const missing = (): SessionError => new SessionError(`no session ${key} (${this.locationOf(key)})`);
    if (options.all === true) {
      const { rows } = await this.run(`read session ${key}`, (db) => db.query<Row>(`SELECT seq, record::text AS line FROM ${this.t("session_records")} WHERE session_key = $1 ORDER BY seq`, [key]));
      if (rows.length === 0) throw missing();
      const { records, warnings } = this.parseRows(key, rows);
      warnings.forEach((warning) => this.onWarning(warning));
      return records;
    }
    const region = await this.readRegion(key);
    if (region === undefined) throw missing();
    region.warnings.forEach((warning) => this.onWarning(warning));
    return recordsToShow(region);
  }

  async fork(fromKey: string, toKey: string, options: { upToMessageId?: string } = {}): Promise<LoadedSession> {
    const source = await this.show(fromKey, { all: true });
    const { agentId, records } = selectForkRecords(source, this.locationOf(fromKey), fromKey, options.upToMessageId);
    const release = await this.lock(toKey);
    try {
      if (this.held.get(toKey)!.nextSeq > 0) throw new SessionError(`session ${toKey} already exists (${this.locationOf(toKey)})`);
      await this.append(toKey, [headerRecordFor(toKey, agentId, this.clock.now(), fromKey), ...records]);
      return await this.load(toKey, { mode: "turn-start" });
    } finally {
      await release();
    }
  }

  addSteer(key: string, text: string): Promise<string> {
    return addPgSteer(this.database, key, text, this.clock);
  }

  inbox(key: string): Inbox {
    return new PgInbox(this.database, key);
  }

  /** Gives back the database when this store opened it (`owned`); a store given a database leaves it to its giver. Idempotent. */
  async close(): Promise<void> {
    if (!this.owned || this.closed) return;
    this.closed = true;
    await this.database.close();
  }

  /**
   * A connection of the turns pool, waiting at most until `deadline`. All of them in use (this
   * process runs as many turns as `turnConnections`, subagents included) is said as such.
   */
  private async connectForTurn(key: string, deadline: number): Promise<PoolClient> {
    const turns = this.database.turns;
    const connecting = turns.connect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()))));
    try {
      const client = await Promise.race([connecting, late]);
      if (client) return client;
      connecting.then((c) => c.release(), () => undefined);
      throw new SessionError(`cannot lock session ${key}: all ${this.database.config.turnConnections} turn connections of this process are in use (raise the database option's turnConnections) (waited ${this.lockTimeoutMs} ms)`);
    } catch (error) {
      if (error instanceof SessionError) throw error;
      throw new SessionError(`cannot lock session ${key}: ${describeDatabaseError(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  private busy(key: string, holder: string): SessionError {
    return new SessionError(`session busy: ${key} is locked by ${holder} (waited ${this.lockTimeoutMs} ms; ${this.locationOf(key)})`);
  }

  /**
   * One statement, so one transaction: moves `next_seq` on only while the epoch is still ours
   * (the row lock orders it against a takeover's epoch bump), and inserts the records numbered
   * from there. No row updated means another process took the session: nothing is written.
   */
  private async appendHeld(key: string, held: Held, records: SessionRecord[], lines: string[]): Promise<void> {
    const where = this.locationOf(key);
    if (held.lost !== undefined) throw new SessionError(`cannot append to session ${where}: the connection holding its lock was lost (${held.lost}); nothing was written`);
    if (held.nextSeq === 0 && records[0]?.type !== "session") {
      const header = headerRecordFor(key, agentIdFromKey(key), this.clock.now());
      records = [header, ...records];
      lines = [serializeRecord(header, where), ...lines];
    }
    const sql = `WITH s AS (UPDATE ${this.t("sessions")} SET next_seq = next_seq + $3, updated_at = now() WHERE key = $1 AND epoch = $2 RETURNING next_seq - $3 AS first)
      INSERT INTO ${this.t("session_records")} (session_key, seq, id, type, record)
      SELECT $1, s.first + r.ord - 1, r.id, r.type, r.record FROM s, unnest($4::text[], $5::text[], $6::json[]) WITH ORDINALITY AS r(id, type, record, ord)`;
    const ids = records.map((record) => ("id" in record && typeof record.id === "string" ? record.id : null));
    let inserted: number;
    try {
      const result = await held.client.query(sql, [key, held.epoch, records.length, ids, records.map((r) => r.type), lines]);
      inserted = result.rowCount ?? 0;
    } catch (error) {
      if (isConnectionLost(error)) held.lost ??= describeDatabaseError(error);
      throw new SessionError(`cannot append to session ${where}: ${describeDatabaseError(error)}`, { cause: error });
    }
    if (inserted === 0) throw new SessionError(`cannot append to session ${where}: another process has taken over its lock since this one took it; nothing was written`);
    held.nextSeq += records.length;
    held.written = true;
  }

  /** Waits for the session's advisory lock until `deadline`; throws "session busy" naming the holder. */
  private async waitForLock(client: PoolClient, key: string, deadline: number): Promise<void> {
    const lockKey = this.lockKey(key);
    const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [lockKey]);
    if (rows[0]?.ok) return;
    const left = Math.max(1, Math.round(deadline - Date.now()));
    try {
      await client.query(`SET lock_timeout = ${left}`);
      // The server gives up at lock_timeout; the driver's own limit only guards against a server that never answers.
      // (`query_timeout` per query is read by the driver but missing from its types.)
      const wait = { text: "SELECT pg_advisory_lock($1::bigint)", values: [lockKey], query_timeout: left + CONNECT_TIMEOUT_MS };
      await client.query(wait as { text: string; values: string[] });
    } catch (error) {
      if ((error as { code?: string }).code !== "55P03") throw error;
      throw this.busy(key, await this.describeHolder(lockKey));
    } finally {
      await client.query("RESET lock_timeout").catch(() => undefined);
    }
  }

  /** Who holds an advisory lock, from the server's own tables: `miniclaw pid N on HOST` (its application name). */
  private async describeHolder(lockKey: string): Promise<string> {
    const value = BigInt.asUintN(64, BigInt(lockKey));
    const [high, low] = [Number(value >> 32n), Number(value & 0xffffffffn)];
    const { rows } = await this.database.pool
      .query<{ name: string; pid: number }>(
        "SELECT a.application_name AS name, a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 1 LIMIT 1",
        [high, low],
      )
      .catch(() => ({ rows: [] as { name: string; pid: number }[] }));
    const row = rows[0];
    return row ? `${row.name || "another client"} (server process ${row.pid})` : "another process";
  }

  /**
   * The load region in one query: the header, the last compaction, and every record from the
   * compaction's first kept message on (from the compaction itself when that message is gone).
   */
  private async readRegion(key: string, client?: PoolClient): Promise<LoadRegion | undefined> {
    const r = this.t("session_records");
    const sql = `WITH c AS (SELECT seq, record->>'firstKeptId' AS kept FROM ${r} WHERE session_key = $1 AND type = 'compaction' ORDER BY seq DESC LIMIT 1),
      k AS (SELECT min(x.seq) AS seq FROM ${r} x JOIN c ON x.id = c.kept WHERE x.session_key = $1 AND x.seq < c.seq)
      SELECT seq, record::text AS line, (SELECT seq FROM c) AS compaction_seq, (SELECT seq FROM k) AS kept_seq FROM ${r}
      WHERE session_key = $1 AND (seq = 0 OR seq >= coalesce((SELECT seq FROM k), (SELECT seq FROM c), 0)) ORDER BY seq`;
    const { rows } = await this.run(`read session ${key}`, (db) => db.query<Row & { compaction_seq: string | null; kept_seq: string | null }>(sql, [key]), client);
    if (rows.length === 0) return undefined;
    const parsed = this.parseRows(key, rows);
    const header = parsed.records[0]?.type === "session" && rows[0]!.seq === "0" ? parsed.records[0] : undefined;
    const compaction = parsed.records.findLast((record): record is CompactionRecord => record.type === "compaction");
    const region = regionOfRecords(header ? parsed.records.slice(1) : parsed.records, { header, compaction });
    const missingKept = compaction && rows[0]!.kept_seq === null ? [`${this.locationOf(key)}: ${keptMissing(compaction).message}`] : [];
    const noHeader = header === undefined ? [`${this.locationOf(key)}: no readable session header`] : [];
    return { ...region, warnings: [...noHeader, ...missingKept, ...parsed.warnings] };
  }

  /** Parses rows into records; a row that is not a record (edited by hand) is skipped with a warning naming its seq. */
  private parseRows(key: string, rows: Row[]): { records: SessionRecord[]; warnings: string[] } {
    const records: SessionRecord[] = [];
    const warnings: string[] = [];
    for (const row of rows) {
      const parsed = parseRecordLine(row.line);
      if (parsed.ok) records.push(parsed.record);
      else warnings.push(`${this.locationOf(key)}: record ${row.seq}: skipped a corrupt record: ${parsed.reason}`);
    }
    return { records, warnings };
  }

  /** Runs a query on `client` (a held session's connection) or the pool; a driver error becomes a SessionError saying what was being done. */
  private async run<T>(what: string, query: (db: Queryable) => Promise<T>, client?: PoolClient): Promise<T> {
    try {
      return await query(client ?? this.database.pool);
    } catch (error) {
      throw new SessionError(`cannot ${what} (${this.database.schema}): ${describeDatabaseError(error)}`, { cause: error });
    }
  }

  private lockKey(key: string): string {
    return this.database.lockKey(`session:${key}`);
  }

  private t(name: string): string {
    return this.database.table(name);
  }
}


