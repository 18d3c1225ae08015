// The schema's versions, applied in order once per database under a transaction-wide advisory lock, so several processes may start at once.
import type { Database } from "./database.js";
import { inTransaction } from "./transaction.js";

/**
 * Every migration, oldest first: its version (unique, increasing) and its SQL, given the quoted schema. A released one is never
 * edited: a change is a new version.
 * - `sessions.epoch` grows each time a process takes a session's lock; an append names the epoch it was given and writes nothing
 *   once it has moved on (the fence). `session_records.record` is `json`, not `jsonb`: kept as written, so a reload sends the
 *   model the same bytes (its prompt cache depends on them) and an export is the file's line. `session_inbox`: steers not yet delivered.
 * - `cron_runs.record` is the record as runs.jsonl holds it; beside it `tick` (null for `cron run`), `attempt` (2 for the retry
 *   after its worker died) and `worker`. `cron_ticks` has one row per (job, scheduled second): the worker whose insert wins runs it.
 */
const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: (schema: string) => string }> = [
  {
    version: 1,
    name: "sessions",
    sql: (s) => `
      CREATE TABLE ${s}.sessions (
        key text PRIMARY KEY,
        epoch bigint NOT NULL DEFAULT 0,
        next_seq bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.session_records (
        session_key text NOT NULL REFERENCES ${s}.sessions (key) ON DELETE CASCADE,
        seq bigint NOT NULL,
        id text,
        type text NOT NULL,
        record json NOT NULL,
        PRIMARY KEY (session_key, seq)
      );
      CREATE INDEX session_records_compactions ON ${s}.session_records (session_key, seq) WHERE type = 'compaction';
      CREATE INDEX session_records_ids ON ${s}.session_records (session_key, id);
      CREATE TABLE ${s}.session_inbox (
        seq bigserial PRIMARY KEY,
        session_key text NOT NULL,
        id text NOT NULL UNIQUE,
        ts bigint NOT NULL,
        text text NOT NULL
      );
      CREATE INDEX session_inbox_key ON ${s}.session_inbox (session_key, seq);`,
  },
  {
    version: 2,
    name: "cron",
    sql: (s) => `
      CREATE TABLE ${s}.cron_runs (
        id bigserial PRIMARY KEY,
        job text NOT NULL,
        tick timestamptz,
        attempt integer NOT NULL DEFAULT 1,
        worker text NOT NULL,
        start_at timestamptz NOT NULL,
        status text NOT NULL,
        record json NOT NULL
      );
      CREATE INDEX cron_runs_job ON ${s}.cron_runs (job, id);
      CREATE TABLE ${s}.cron_pauses (
        job text PRIMARY KEY,
        since timestamptz NOT NULL,
        reason text NOT NULL
      );
      CREATE TABLE ${s}.cron_ticks (
        job text NOT NULL,
        tick timestamptz NOT NULL,
        claimed_by text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job, tick)
      );`,
  },
];

/** The schema's version once every migration has run. */
export const LATEST_VERSION = MIGRATIONS.at(-1)!.version;

/**
 * Brings the database's schema to the latest version: creates the schema and its `migrations` table if needed, then applies
 * each missing migration, all in one transaction holding an advisory lock on the schema's name, so concurrent callers wait for
 * the first and then find nothing to do. Resolves to the version it found (0: no tables yet). Throws what the server says.
 */
export async function migrate(database: Database): Promise<number> {
  const schema = `"${database.schema}"`;
  // Up to date already: no DDL at all, so a role without CREATE on the database starts once an admin has migrated.
  const current = await database.pool.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${schema}.migrations`).then((r) => r.rows[0]?.v ?? 0, () => 0);
  if (current >= LATEST_VERSION) return current;
  return inTransaction(database, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [database.lockKey("migrations")]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${schema}.migrations`);
    const done = new Set(rows.map((row) => row.version));
    for (const migration of MIGRATIONS.filter((m) => !done.has(m.version))) {
      await client.query(migration.sql(schema));
      await client.query(`INSERT INTO ${schema}.migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
    }
    return Math.max(0, ...done);
  });
}
