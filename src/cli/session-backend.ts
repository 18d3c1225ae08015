// Which session backend a command uses: PostgreSQL when a database is configured (its module loaded then only), else the workspace's files.
import type { Clock } from "../deps.js";
import type { DatabaseOption } from "../postgres/config.js";
import { SessionStore, type SessionBackend } from "../sessions/store.js";

/** Options of `openSessionBackend`. */
export interface BackendOptions {
  /** The files' folder (`<workspace>/sessions`), used when no database is configured. */
  sessionsDir: string;
  /** `--database-url`; over MINICLAW_DATABASE_URL of `env`. */
  database?: DatabaseOption | undefined;
  env: Readonly<Record<string, string | undefined>>;
  clock?: Clock | undefined;
  onWarning?: ((message: string) => void) | undefined;
}

/**
 * The session store to use: a PostgreSQL store when the option or MINICLAW_DATABASE_URL names a
 * database (connected and migrated here), else `SessionStore` on the folder. Throws ConfigError for a
 * bad setting or a database that cannot be used.
 */
export async function openSessionBackend(opts: BackendOptions): Promise<SessionBackend> {
  const common = { ...(opts.clock && { clock: opts.clock }), ...(opts.onWarning && { onWarning: opts.onWarning }) };
  if (opts.database === undefined && !opts.env["MINICLAW_DATABASE_URL"]) return new SessionStore(opts.sessionsDir, common);
  const [{ resolveDatabaseConfig }, { openDatabase }, { PgSessionStore }] = await Promise.all([import("../postgres/config.js"), import("../postgres/database.js"), import("../postgres/pg-store.js")]);
  const config = resolveDatabaseConfig(opts.database, opts.env);
  if (!config) return new SessionStore(opts.sessionsDir, common);
  return new PgSessionStore(await openDatabase(config), { ...common, owned: true });
}
