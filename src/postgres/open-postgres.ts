// Opening PostgreSQL for sessions and cron: one database of the process, its session store and its cron backend.
import type { Clock } from "../deps.js";
import { resolveDatabaseConfig, type DatabaseOption } from "./config.js";
import { migrateCron } from "./cron-pg.js";
import { pgCron, type PgCron } from "./cron-claims.js";
import { openDatabase } from "./database.js";
import { MIGRATIONS } from "./migrations.js";
import { PgSessionStore } from "./pg-store.js";

/** Sessions and cron in one PostgreSQL schema, for as many processes and hosts as share it. */
export interface Postgres {
  /** The session backend (`SessionBackend`): hand it to `openAssistant({ store })` or `runAgentTurn(..., { store })`. */
  readonly sessions: PgSessionStore;
  /** The cron backend: the run log and pauses every worker shares, `cron run` leases, and the claims of `startScheduler` (`cron.openClaims(jobs, { log })`). */
  readonly cron: PgCron;
  /** The schema: `<schema>` for miniclaw's tables, `<schema>_boss` for pg-boss's. */
  readonly schema: string;
  /** Brings pg-boss's tables up to date too (miniclaw's are at open); what `miniclaw db migrate` runs. Resolves to the schema's version. */
  migrate(): Promise<number>;
  /** Gives the database back: its pools end once no other user in the process holds it. Never throws. */
  close(): Promise<void>;
}

/** Options of `openPostgres`. */
export interface OpenPostgresOptions {
  /** Timestamps of session records; default the system clock. */
  clock?: Clock;
  /** Warnings of session loads (a corrupt row skipped). */
  onWarning?: (message: string) => void;
  /** How long a turn waits for a session another turn holds; default 10 s. */
  lockTimeoutMs?: number;
}

/**
 * Connects to `database` (a URL, or `{ url, schema?, poolSize?, turnConnections? }`) and runs
 * miniclaw's migrations once per process (safe beside other processes doing the same). The
 * environment is never read here: the CLI (MINICLAW_DATABASE_URL) or the caller says which
 * database. Throws ConfigError naming the setting, or saying why the server cannot be used.
 */
export async function openPostgres(database: DatabaseOption, options: OpenPostgresOptions = {}): Promise<Postgres> {
  const config = resolveDatabaseConfig(database, {})!;
  const opened = await openDatabase(config);
  const sessions = new PgSessionStore(opened, {
    ...(options.clock && { clock: options.clock }),
    ...(options.onWarning && { onWarning: options.onWarning }),
    ...(options.lockTimeoutMs !== undefined && { lockTimeoutMs: options.lockTimeoutMs }),
  });
  let closed: Promise<void> | undefined;
  return {
    sessions,
    cron: pgCron(opened),
    schema: config.schema,
    async migrate() {
      await migrateCron(opened);
      return MIGRATIONS.at(-1)?.version ?? 0;
    },
    close: () => (closed ??= opened.close()),
  };
}
