// Reading sessions on PostgreSQL: the load region in one query, every record of a session, rows parsed as records.
import { SessionError } from "../errors.js";
import { describeDatabaseError, isConnectionLost, type Database, type Queryable } from "./database.js";
import { type CompactionRecord, type SessionRecord, parseRecordLine } from "../sessions/records.js";
import { keptMissing, regionOfRecords, type LoadRegion } from "../sessions/session-file.js";

type Row = { seq: string; line: string };

/** Where a session lives, for messages: `postgres:<schema>/<key>`. */
export function sessionLocation(database: Database, key: string): string {
  return `postgres:${database.schema}/${key}`;
}

/** Runs a query on `client` (a held session's connection) or the pool; a driver error becomes a SessionError saying what was being done. */
export function querySessions<T>(database: Database, what: string, query: (db: Queryable) => Promise<T>, client?: Queryable): Promise<T> {
  return query(client ?? database.pool).catch((error: unknown) => failed(database, what, error));
}

/** `querySessions` for a read: on the pool, a connection found dead (a restart leaves idle ones behind) gets the query once more, on another. */
export function readSessions<T>(database: Database, what: string, query: (db: Queryable) => Promise<T>, client?: Queryable): Promise<T> {
  if (client !== undefined) return querySessions(database, what, query, client);
  return query(database.pool).catch((error: unknown) => (isConnectionLost(error) ? querySessions(database, what, query) : failed(database, what, error)));
}

function failed(database: Database, what: string, error: unknown): never {
  throw new SessionError(`cannot ${what} (${database.schema}): ${describeDatabaseError(error)}`, { cause: error });
}

/** The load region in one query: the header, the last compaction, and every record from its first kept message (or itself) on. */
export async function readRegion(database: Database, key: string, client?: Queryable): Promise<LoadRegion | undefined> {
  const r = database.table("session_records");
  const sql = `WITH c AS (SELECT seq, record->>'firstKeptId' AS kept FROM ${r} WHERE session_key = $1 AND type = 'compaction' ORDER BY seq DESC LIMIT 1),
    k AS (SELECT min(x.seq) AS seq FROM ${r} x JOIN c ON x.id = c.kept WHERE x.session_key = $1 AND x.seq < c.seq)
    SELECT seq, record::text AS line, (SELECT seq FROM k) AS kept_seq FROM ${r}
    WHERE session_key = $1 AND (seq = 0 OR seq >= coalesce((SELECT seq FROM k), (SELECT seq FROM c), 0)) ORDER BY seq`;
  const { rows } = await readSessions(database, `read session ${key}`, (db) => db.query<Row & { kept_seq: string | null }>(sql, [key]), client);
  if (rows.length === 0) return undefined;
  const where = sessionLocation(database, key);
  const parsed = parseRows(where, rows);
  const header = parsed.records[0]?.type === "session" && rows[0]!.seq === "0" ? parsed.records[0] : undefined;
  const compaction = parsed.records.findLast((record): record is CompactionRecord => record.type === "compaction");
  const region = regionOfRecords(header ? parsed.records.slice(1) : parsed.records, { header, compaction });
  const missingKept = compaction && rows[0]!.kept_seq === null ? [`${where}: ${keptMissing(compaction).message}`] : [];
  const noHeader = header === undefined ? [`${where}: no readable session header`] : [];
  return { ...region, warnings: [...noHeader, ...missingKept, ...parsed.warnings] };
}

/** Every record of session `key`, in order, with a warning for each row that is not one; undefined when there is none. */
export async function readAllRecords(database: Database, key: string): Promise<{ records: SessionRecord[]; warnings: string[] } | undefined> {
  const sql = `SELECT seq, record::text AS line FROM ${database.table("session_records")} WHERE session_key = $1 ORDER BY seq`;
  const { rows } = await readSessions(database, `read session ${key}`, (db) => db.query<Row>(sql, [key]));
  return rows.length === 0 ? undefined : parseRows(sessionLocation(database, key), rows);
}

/** Parses rows into records; a row that is not a record (edited by hand) is skipped with a warning naming its seq. */
function parseRows(where: string, rows: Row[]): { records: SessionRecord[]; warnings: string[] } {
  const records: SessionRecord[] = [];
  const warnings: string[] = [];
  for (const row of rows) {
    const parsed = parseRecordLine(row.line);
    if (parsed.ok) records.push(parsed.record);
    else warnings.push(`${where}: record ${row.seq}: skipped a corrupt record: ${parsed.reason}`);
  }
  return { records, warnings };
}
