// Which session backend a process uses: PostgreSQL when a database is configured, else the files of the workspace.
import { resolveDatabaseConfig, type DatabaseOption } from "../postgres/config.js";
import { holdDatabase, openDatabase } from "../postgres/database.js";
import type { Clock } from "../deps.js";
import { PgSessionStore } from "../postgres/pg-store.js";
import { SessionStore, type SessionBackend } from "./store.js";

/** Options of `openSessionBackend`. */
export interface BackendOptions {
  /** The files' folder (`<workspace>/sessions`), used when no database is configured. */
  sessionsDir: string;
  /** The `database` option; over MINICLAW_DATABASE_URL of `env`. */
  database?: DatabaseOption | undefined;
  env: Readonly<Record<string, string | undefined>>;
  clock?: Clock | undefined;
  onWarning?: ((message: string) => void) | undefined;
  /**
   * For the turns of this process (a turn given no `store`): the database stays open for the
   * process's later turns, as one user of it however many turns run, instead of being connected
   * and migrated anew for every turn. Its idle connections close after 10 s and never keep the process alive.
   */
  forTurns?: boolean;
}

/**
 * The session store to use: `PgSessionStore` on the process's shared database when the option or
 * MINICLAW_DATABASE_URL names one (connected and migrated here), else `SessionStore` on the folder.
 * Throws ConfigError for a bad setting or a database that cannot be used.
 */
export async function openSessionBackend(opts: BackendOptions): Promise<SessionBackend> {
  const common = { ...(opts.clock && { clock: opts.clock }), ...(opts.onWarning && { onWarning: opts.onWarning }) };
  const config = resolveDatabaseConfig(opts.database, opts.env);
  if (!config) return new SessionStore(opts.sessionsDir, common);
  if (opts.forTurns) return new PgSessionStore(await holdDatabase(config), common);
  return new PgSessionStore(await openDatabase(config), { ...common, owned: true });
}
