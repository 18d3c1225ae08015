// The library's way to cron on PostgreSQL: opens the database and pg-boss for the jobs, starts the claimed-tick scheduler, closes both when stopped.
import { resolveDatabaseConfig, type DatabaseOption } from "./config.js";
import { openDatabase, type Database } from "./database.js";
import { ConfigError } from "../errors.js";
import type { Scheduler } from "../cron/cron.js";
import { openCronQueue } from "./cron-pg.js";
import { startDatabaseScheduler, type DatabaseSchedulerOptions } from "./cron-pg-scheduler.js";

/** Options of `openDatabaseScheduler`: those of the scheduler, with the database named as the `database` option names it. */
export interface OpenDatabaseSchedulerOptions extends Omit<DatabaseSchedulerOptions, "database" | "queue"> {
  /** A URL or `{ url, schema?, ... }`; over MINICLAW_DATABASE_URL of `env`. */
  database?: DatabaseOption;
  /** Where MINICLAW_DATABASE_URL and MINICLAW_DATABASE_SCHEMA are read when `database` is not given (default: none). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * Starts one worker of the shared scheduler (what `miniclaw cron` runs with a database): any number
 * of processes on any hosts may call it with the same database and jobs, and each tick of each job
 * runs once, on one of them (see README, "Sessions and cron on PostgreSQL"). Its `stop(graceMs)`
 * stops the scheduler as `startScheduler`'s does, then pg-boss, then gives back the database; a
 * second call aborts running jobs at once. Throws ConfigError when no database is named or it cannot be used.
 */
export async function openDatabaseScheduler(opts: OpenDatabaseSchedulerOptions): Promise<Scheduler> {
  const { database: option, env, ...rest } = opts;
  const config = resolveDatabaseConfig(option, env ?? {});
  if (!config) throw new ConfigError("openDatabaseScheduler needs a database: the database option, or MINICLAW_DATABASE_URL in env");
  const database = await openDatabase(config);
  let scheduler: Scheduler;
  try {
    scheduler = await startQueuedScheduler(database, rest);
  } catch (error) {
    await database.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    stop(graceMs) {
      const stopped = scheduler.stop(graceMs);
      closing ??= stopped.then(() => database.close());
      return stopped.then(() => closing);
    },
  };
}

/**
 * The scheduler of one worker on an open database (its caller's to close): pg-boss's queue for the
 * enabled jobs, then the claimed-tick scheduler over it. Its `stop(graceMs)` stops the scheduler,
 * then the queue; a second call aborts running jobs at once.
 */
export async function startQueuedScheduler(database: Database, opts: Omit<DatabaseSchedulerOptions, "database" | "queue">): Promise<Scheduler> {
  const queue = await openCronQueue(database, opts.jobs.filter((job) => job.enabled).map((job) => job.name), opts.log);
  const scheduler = startDatabaseScheduler({ ...opts, database, queue });
  let stopping: Promise<void> | undefined;
  return {
    stop(graceMs) {
      if (stopping) return scheduler.stop(0).then(() => stopping);
      stopping = scheduler.stop(graceMs).then(() => queue.stop());
      return stopping;
    },
  };
}
