// The schema's versions, applied in order once per database under a transaction-wide advisory lock, so several processes may start at once.
import type { Database } from "./database.js";
import { inTransaction } from "./transaction.js";
import { CRON_MIGRATIONS } from "./schema-cron.js";
import { SESSION_MIGRATIONS } from "./schema-sessions.js";

/** One step of the schema: its version (unique, increasing) and the SQL that makes it, given the quoted schema name. */
export interface Migration {
  version: number;
  name: string;
  sql: (schema: string) => string;
}

/** Every migration, oldest first. A released one is never edited: a change is a new version. */
export const MIGRATIONS: readonly Migration[] = [...SESSION_MIGRATIONS, ...CRON_MIGRATIONS].sort((a, b) => a.version - b.version);

/**
 * Brings the database's schema to the latest version: creates the schema and its `migrations`
 * table if needed, then applies each missing migration, all in one transaction holding an
 * advisory lock on the schema's name, so concurrent callers wait for the first and then find
 * nothing to do. Resolves to the versions applied by this call. Throws what the server says.
 */
export async function migrate(database: Database): Promise<number[]> {
  const schema = `"${database.schema}"`;
  // Up to date already: no DDL at all, so a role without CREATE on the database starts once an admin has migrated.
  const latest = MIGRATIONS.at(-1)?.version ?? 0;
  const current = await database.pool.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${schema}.migrations`).then((r) => r.rows[0]?.v ?? 0, () => 0);
  if (current >= latest) return [];
  return inTransaction(database, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [database.lockKey("migrations")]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${schema}.migrations`);
    const done = new Set(rows.map((row) => row.version));
    const applied: number[] = [];
    for (const migration of MIGRATIONS.filter((m) => !done.has(m.version))) {
      await client.query(migration.sql(schema));
      await client.query(`INSERT INTO ${schema}.migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}
