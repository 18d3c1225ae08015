// One PostgreSQL database per process and config: two pools (short queries, turn-long connections), migrated on first open. The only home of `pg`.
import { createHash } from "node:crypto";
import { hostname } from "node:os";
import type * as pg from "pg";
import { ConfigError } from "../errors.js";
import { redactUrl, type ResolvedDatabaseConfig } from "./config.js";
import { migrate } from "./migrations.js";

// pg's pools and clients by the shape miniclaw uses, so the package's types never reach @types/pg, which a user may not have.
/** A query's answer, as pg gives it. */
export interface QueryResult<R> { rows: R[]; rowCount: number | null }
/** Anything that runs a query: a pool or a client; `query_timeout` bounds one query. */
export interface Queryable {
  query<R = any>(text: string | { text: string; values?: unknown[]; query_timeout?: number }, values?: unknown[]): Promise<QueryResult<R>>;
}
/** A client of either pool; `release(true)` destroys it instead of returning it. */
export interface PoolClient extends Queryable {
  release(destroy?: boolean): void;
  on(event: "error", listener: (error: Error) => void): unknown;
  off(event: "error", listener: (error: Error) => void): unknown;
}
/** One of the two pools. */
export interface Pool extends Queryable {
  connect(): Promise<PoolClient>;
  end(): Promise<void>;
}

/** How this process names itself: the application name of its connections, and the worker in cron_runs and cron_ticks. */
export const PROCESS_NAME = `miniclaw pid ${process.pid} on ${hostname()}`;

/**
 * `pool` for short queries, `turns` for connections held for a turn (a session's advisory lock lives as long as its
 * connection). Shared within the process per config; the last `close` ends both pools. Idle connections never keep the process alive.
 */
export class Database {
  users = 0;
  /** The schema's version this process found before migrating it (0: it had no tables). */
  foundVersion = 0;
  private ended = false;

  constructor(
    readonly config: ResolvedDatabaseConfig,
    readonly pool: Pool,
    readonly turns: Pool,
  ) {}

  get schema(): string {
    return this.config.schema;
  }

  /** A table of miniclaw's schema, quoted for SQL (the schema is a checked identifier). */
  table(name: string): string {
    return `"${this.config.schema}"."${name}"`;
  }

  /** A 64-bit advisory lock key for `subject` in this schema, as a decimal string (for `pg_advisory_lock($1::bigint)`). */
  lockKey(subject: string): string {
    return createHash("sha256").update(`${this.config.schema}\0${subject}`).digest().readBigInt64BE(0).toString();
  }

  /** One user fewer; the last one ends both pools (later queries then fail). Idempotent once ended; never throws. */
  async close(): Promise<void> {
    this.users -= 1;
    if (this.users > 0 || this.ended) return;
    this.ended = true;
    opened.delete(databaseKey(this.config));
    await Promise.allSettled([this.pool.end(), this.turns.end()]);
  }
}

const opened = new Map<string, Promise<Database>>();

/** The process's database for `config`, migrated once (safe beside other processes) and shared. Throws ConfigError saying why the server cannot be used. */
export async function openDatabase(config: ResolvedDatabaseConfig): Promise<Database> {
  const key = databaseKey(config);
  let opening = opened.get(key);
  if (!opening) {
    opening = connect(config);
    opened.set(key, opening);
    opening.catch(() => opened.delete(key));
  }
  const database = await opening;
  database.users += 1;
  return database;
}

async function connect(config: ResolvedDatabaseConfig): Promise<Database> {
  const { default: pgModule } = await import("pg");
  const { timeoutMs } = config;
  // Both ends probe a silent peer: this process notices a vanished server, and the server a vanished client (a dead host, a cut
  // network) in about 25 s, freeing its locks. The URL's own `options` go first: the driver would otherwise drop them for ours.
  const urlOptions = URL.canParse(config.url) ? (new URL(config.url).searchParams.get("options") ?? "") : "";
  const options = `${urlOptions} -c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3`.trim();
  const common: pg.PoolConfig = {
    connectionString: config.url,
    application_name: PROCESS_NAME,
    allowExitOnIdle: true,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  const pool = new pgModule.Pool({ ...common, options, max: config.poolSize });
  // A turn connection holding a lock speaks at least every heartbeat: one silent for twice the timeout was cut off (a partition
  // keepalives cannot see, such as a proxy that stopped forwarding), and the server ends it, freeing its locks. Idle ones in the
  // pool close before that.
  const turnOptions = `${options} -c idle_session_timeout=${2 * timeoutMs}`;
  const turns = new pgModule.Pool({ ...common, options: turnOptions, max: config.turnConnections, idleTimeoutMillis: Math.min(10_000, timeoutMs) });
  // An idle client that loses its server emits on the pool; the next query reports it instead of the process dying.
  pool.on("error", () => {});
  turns.on("error", () => {});
  const database = new Database(config, pool, turns);
  try {
    database.foundVersion = await migrate(database);
  } catch (error) {
    await database.close();
    throw new ConfigError(`cannot use the database ${redactUrl(config.url)}: ${describeDatabaseError(error)}`, { cause: error });
  }
  return database;
}

/** One line for a driver or server error: what went wrong, without a stack. */
export function describeDatabaseError(error: unknown): string {
  const e = error as { code?: string; message?: string; errors?: unknown[] };
  if (e.code === "ECONNREFUSED") return "connection refused (is PostgreSQL running there?)";
  if (e.code === "ENOTFOUND") return "no such host";
  if (e.code === "3D000") return e.message ?? "no such database";
  if (e.code === "28P01" || e.code === "28000") return `authentication failed (${e.message ?? ""})`;
  if (Array.isArray(e.errors) && e.errors.length > 0) return describeDatabaseError(e.errors[0]);
  const message = e.message ?? String(error);
  return /timeout|timed out/i.test(message) ? `the database is unreachable: it did not answer in time (${message})` : message;
}

const LOST_CODES = ["57P01", "57P02", "57P03", "ECONNREFUSED", "ECONNRESET", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT"];

/** Whether the connection itself is gone, not one statement refused: such a connection must not be reused. */
export function isConnectionLost(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | undefined;
  return LOST_CODES.includes(e?.code ?? "") || /Connection terminated|Query read timeout|timeout exceeded|not queryable|ECONNRESET|ECONNREFUSED|EPIPE/i.test(e?.message ?? "");
}

/** What makes two configs the same database of the process: URL, schema, pool sizes and timeout. */
function databaseKey(config: ResolvedDatabaseConfig): string {
  return JSON.stringify([config.url, config.schema, config.poolSize, config.turnConnections, config.timeoutMs]);
}
