// Which session backend a process uses: PostgreSQL when a database is configured, else the files of the workspace.
import { resolveDatabaseConfig, type DatabaseOption } from "../db/config.js";
import { openDatabase } from "../db/database.js";
import type { Clock } from "../deps.js";
import { PgSessionStore } from "./pg-store.js";
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
  return new PgSessionStore(await openDatabase(config), { ...common, owned: true });
}
