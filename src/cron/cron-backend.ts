// Where a workspace's cron state lives: files (runs.jsonl, state.json), or PostgreSQL when a database is configured.
import { resolveDatabaseConfig, type DatabaseOption } from "../postgres/config.js";
import { openDatabase, type Database } from "../postgres/database.js";
import { fileCronStore, type CronStore } from "./cron-store.js";
import { databaseCronStore } from "../postgres/cron-table.js";

/** The store of one command, and the database behind it when there is one. */
export interface CronBackend {
  store: CronStore;
  /** Set when cron runs on PostgreSQL: the scheduler coordinates through it. */
  database: Database | undefined;
  /** Closes the database (nothing for files); never throws. */
  close(): Promise<void>;
}

/**
 * The backend for `workspace`: PostgreSQL when `option` (`--database-url`) or MINICLAW_DATABASE_URL
 * of `env` names one (opened and migrated), else the workspace's files, exactly as without a
 * database. Throws ConfigError for a bad setting or a server that cannot be used.
 */
export async function openCronBackend(workspace: string, option: DatabaseOption | undefined, env: Readonly<Record<string, string | undefined>>): Promise<CronBackend> {
  const config = resolveDatabaseConfig(option, env);
  if (!config) return { store: fileCronStore(workspace), database: undefined, close: async () => {} };
  const database = await openDatabase(config);
  return { store: databaseCronStore(database), database, close: () => database.close() };
}
