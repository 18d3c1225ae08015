// A cron worker of a program's own in one call: PostgreSQL opened, the one scheduler started on its claims, both closed on stop.
import type { Scheduler, SchedulerOptions } from "../cron/cron.js";
import { startScheduler } from "../cron/cron.js";
import { ConfigError } from "../errors.js";
import { resolveDatabaseConfig, type DatabaseOption } from "./config.js";
import type { PgClaimsOptions } from "./cron-claims.js";
import { openPostgres } from "./open-postgres.js";

/** Options of `openDatabaseScheduler`: the scheduler's (its claims made here), the database, and the worker's. */
export interface OpenDatabaseSchedulerOptions extends Omit<SchedulerOptions, "claims">, Omit<PgClaimsOptions, "log" | "clock"> {
  /** A URL or `{ url, schema?, ... }`; over MINICLAW_DATABASE_URL of `env`. */
  database?: DatabaseOption;
  /** Where MINICLAW_DATABASE_URL and MINICLAW_DATABASE_SCHEMA are read when `database` is not given (default: none). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Starts one worker of the shared scheduler (what `miniclaw cron` runs with a database): any number
 * of processes on any hosts may call it with the same database and jobs, and each tick of each job
 * runs once, on one of them. The same as `openPostgres(url)`, then `startScheduler({ ..., claims:
 * await pg.cron.openClaims(jobs, { log }) })`. Its `stop(graceMs)` stops the scheduler as
 * `startScheduler`'s does, then gives back the database. Throws ConfigError when no database is named or it cannot be used.
 */
export async function openDatabaseScheduler(opts: OpenDatabaseSchedulerOptions): Promise<Scheduler> {
  const { database: option, env, worker, maxRuns, pollMs, ...rest } = opts;
  const config = resolveDatabaseConfig(option, env ?? {});
  if (!config) throw new ConfigError("openDatabaseScheduler needs a database: the database option, or MINICLAW_DATABASE_URL in env");
  const pg = await openPostgres(config);
  try {
    const claims = await pg.cron.openClaims(opts.jobs, { log: opts.log, ...(opts.clock && { clock: opts.clock }), ...(worker && { worker }), ...(maxRuns && { maxRuns }), ...(pollMs && { pollMs }) });
    const scheduler = startScheduler({ ...rest, claims });
    return { stop: (graceMs) => scheduler.stop(graceMs).then(() => pg.close()) };
  } catch (error) {
    await pg.close();
    throw error;
  }
}
