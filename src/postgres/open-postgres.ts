// Opening PostgreSQL for sessions and cron: one database of the process, its session store and its cron backend.
import type { SessionStoreOptions } from "../sessions/store.js";
import { resolveDatabaseConfig, type DatabaseOption } from "./config.js";
import { pgCron, type PgCron } from "./cron-claims.js";
import { migrateCron } from "./cron-pg.js";
import { openDatabase } from "./database.js";
import { LATEST_VERSION } from "./migrations.js";
import { PgSessionStore } from "./pg-store.js";

/** Sessions and cron in one PostgreSQL schema, for as many processes and hosts as share it. */
export interface Postgres {
  /** The session backend (`SessionBackend`): hand it to `openAssistant({ store })` or `runAgentTurn(..., { store })`. */
  readonly sessions: PgSessionStore;
  /** The cron backend: the run log and pauses every worker shares, `cron run` leases, and the claims of `startScheduler` (`cron.openClaims(jobs, { log })`). */
  readonly cron: PgCron;
  /** The schema: `<schema>` for miniclaw's tables, `<schema>_boss` for pg-boss's. */
  readonly schema: string;
  /** Brings pg-boss's tables up to date too (miniclaw's are at open); what `miniclaw db migrate` runs. Says what it found and did. */
  migrate(): Promise<Migration>;
  /** Gives the database back: its pools end once no other user in the process holds it. Never throws. */
  close(): Promise<void>;
}

/** What `migrate` found: the schema's version before this process opened it (0: no tables), now, and whether pg-boss's schema existed. */
export interface Migration {
  found: number;
  version: number;
  bossFound: boolean;
}

/** For its sessions: `clock` stamps records, `onWarning` hears a corrupt row skipped, `lockTimeoutMs` (default 10 s) bounds a wait for a busy session. */
export type OpenPostgresOptions = Omit<SessionStoreOptions, "fsync">;

/**
 * Connects to `database` and migrates it once per process (safe beside other processes). The environment is never read
 * here. Throws ConfigError naming the setting, or saying why the server cannot be used.
 */
export async function openPostgres(database: DatabaseOption, options: OpenPostgresOptions = {}): Promise<Postgres> {
  const config = resolveDatabaseConfig(database, {})!;
  const opened = await openDatabase(config);
  let closed: Promise<void> | undefined;
  return {
    sessions: new PgSessionStore(opened, options),
    cron: pgCron(opened),
    schema: config.schema,
    async migrate() {
      const boss = await opened.pool.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [`${config.schema}_boss`]);
      await migrateCron(opened);
      return { found: opened.foundVersion, version: LATEST_VERSION, bossFound: boss.rows.length > 0 };
    },
    close: () => (closed ??= opened.close()),
  };
}
