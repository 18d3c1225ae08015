// Which database, if any: the `database` option over MINICLAW_DATABASE_URL / MINICLAW_DATABASE_SCHEMA, checked into one config.
import { ConfigError } from "../errors.js";
import { nonEmpty } from "../model/credentials.js";

/**
 * The database timeout's default: a connection attempt, a statement or a held lock's heartbeat unanswered this long fails. A
 * silent partition then ends a turn within twice it (a statement, then the connection attempt of a retried read), and the
 * server frees the locks of a silent connection within twice it too (`idle_session_timeout`): 16 s, under the 20 s promised.
 */
export const DEFAULT_TIMEOUT_MS = 8_000;

/** Where sessions and cron live when not in files. */
export interface DatabaseConfig {
  /** `postgres://user@host:port/db` (or `postgresql://`). */
  url: string;
  /** The schema of miniclaw's tables (default `miniclaw`); pg-boss's go in `<schema>_boss`. */
  schema?: string;
  /** Connections for short queries (loads by readers, listings, cron bookkeeping), per process; default 10. */
  poolSize?: number;
  /** Connections held by turns and run locks (one per held lock), per process; default 20. */
  turnConnections?: number;
  /** Env MINICLAW_DATABASE_TIMEOUT_MS; default DEFAULT_TIMEOUT_MS. A cut-off turn ends, and its lock is freed, within twice this. */
  timeoutMs?: number;
}

/** The `database` option: a URL, or a config. */
export type DatabaseOption = string | DatabaseConfig;

/** Every default filled in and checked. */
export type ResolvedDatabaseConfig = Required<DatabaseConfig>;

/**
 * The option, else MINICLAW_DATABASE_URL (and _SCHEMA, default `miniclaw`) from `env`; undefined (files) when neither is
 * set. Throws ConfigError naming the setting for a bad URL, schema or size.
 */
export function resolveDatabaseConfig(option: DatabaseOption | undefined, env: Readonly<Record<string, string | undefined>>): ResolvedDatabaseConfig | undefined {
  const given = typeof option === "string" ? { url: option } : option;
  const url = given?.url ?? nonEmpty(env["MINICLAW_DATABASE_URL"]);
  if (url === undefined) return undefined;
  const source = given ? "the database option" : "MINICLAW_DATABASE_URL";
  if (!/^postgres(ql)?:\/\//.test(url)) throw new ConfigError(`${source} must be a PostgreSQL URL (postgres://user@host:5432/db), not "${redactUrl(url)}"`);
  const schema = given?.schema ?? nonEmpty(env["MINICLAW_DATABASE_SCHEMA"]) ?? "miniclaw";
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(schema)) {
    throw new ConfigError(`the database schema must be lowercase letters, digits and _ (at most 41, not starting with a digit), not "${schema}"`);
  }
  const timeoutMs = given?.timeoutMs ?? timeoutOf(env["MINICLAW_DATABASE_TIMEOUT_MS"]);
  return {
    url,
    schema,
    poolSize: positive(given?.poolSize, 10, "poolSize"),
    turnConnections: positive(given?.turnConnections, 20, "turnConnections"),
    timeoutMs: positive(timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs"),
  };
}

/** The URL without its password, fit for a message. */
export function redactUrl(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*):[^@/]*@/, "$1:***@");
}

/** MINICLAW_DATABASE_TIMEOUT_MS as a number; ConfigError when it is not a whole number of milliseconds. */
function timeoutOf(value: string | undefined): number | undefined {
  const text = nonEmpty(value);
  if (text === undefined) return undefined;
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new ConfigError(`MINICLAW_DATABASE_TIMEOUT_MS must be a positive whole number of milliseconds, not "${text}"`);
  return Number(text);
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`the database option's ${name} must be a positive integer, not ${String(value)}`);
  return value;
}
