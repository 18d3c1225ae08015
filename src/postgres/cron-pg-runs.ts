// Runs on PostgreSQL: the run log and the pauses every worker shares (cron_runs, cron_pauses), and what the holder of a job's
// run lock does with them: stores each record with its run's completion, reaps a dead worker's run, leases a fetched run.
import { setTimeout as sleep } from "node:timers/promises";
import type { Clock } from "../deps.js";
import type { RunLease } from "../cron/claims.js";
import type { CronJob } from "../cron/cron-config.js";
import { nextRunTime } from "../cron/cron.js";
import type { RunRecord } from "../cron/cron-runs.js";
import { pauseOf, type CronStore, type JobPause } from "../cron/cron-store.js";
import type { AdvisoryLock } from "./advisory-lock.js";
import { RETRY_LIMIT, type CronQueue, type QueuedRun } from "./cron-pg.js";
import { describeDatabaseError, type Database, type Queryable } from "./database.js";
import { inTransaction } from "./transaction.js";

/** The detail of a tick's run that no worker started within one interval of its tick (every worker was stopped). */
export const STALE_DETAIL = "not started within one interval of its tick (no worker was running); skipped rather than run late";
/** A failed store of a record is tried again this many times, this far apart, unless its lock is lost. */
const STORE_TRIES = 5;
const STORE_GAP_MS = 1_000;

/** What the runs of one worker share; `worker` names this process in cron_ticks and cron_runs. */
export type PgCronContext = { database: Database; queue: CronQueue; clock: Clock; log: (line: string) => void; worker: string };

/** Where a record is filed besides its own fields: the tick it ran for and its attempt (none for `cron run`), and its worker. */
type RunPlace = { tick?: Date; attempt?: number; worker: string };

/** Records in `cron_runs`, pauses in `cron_pauses`: every worker sees a pause at its next tick, and a resume anywhere applies everywhere. */
export function databaseCronStore(database: Database): CronStore {
  return {
    runsPlace: `the cron_runs table of schema ${database.schema}`,
    async readRuns(job, limit) {
      const latest = `SELECT id, record FROM ${database.table("cron_runs")} WHERE $1::text IS NULL OR job = $1 ORDER BY id DESC LIMIT $2`;
      const { rows } = await database.pool.query<{ record: RunRecord }>(`SELECT record FROM (${latest}) latest ORDER BY id`, [job ?? null, limit]);
      return rows.map((row) => row.record);
    },
    async readPauses() {
      const { rows } = await database.pool.query<{ job: string; since: Date; reason: string }>(`SELECT job, since, reason FROM ${database.table("cron_pauses")}`);
      return Object.fromEntries(rows.map((row) => [row.job, { since: row.since.toISOString(), reason: row.reason }]));
    },
    async setPause(job, pause) {
      if (pause) await upsertPause(database, database.pool, job, pause);
      else await database.pool.query(`DELETE FROM ${database.table("cron_pauses")} WHERE job = $1`, [job]);
    },
  };
}

/** Inserts `record` into cron_runs through `q` (a pool, or a client in the caller's transaction), and the job's pause when it paused. */
export async function insertRun(database: Database, q: Queryable, record: RunRecord, place: RunPlace): Promise<void> {
  const values = [record.job, place.tick ?? null, place.attempt ?? 1, place.worker, record.start, record.status, JSON.stringify(record)];
  await q.query(`INSERT INTO ${database.table("cron_runs")} (job, tick, attempt, worker, start_at, status, record) VALUES ($1, $2, $3, $4, $5, $6, $7)`, values);
  const pause = pauseOf(record);
  if (pause) await upsertPause(database, q, record.job, pause);
}

async function upsertPause(database: Database, q: Queryable, job: string, pause: JobPause): Promise<void> {
  const sql = `INSERT INTO ${database.table("cron_pauses")} (job, since, reason) VALUES ($1, $2, $3) ON CONFLICT (job) DO UPDATE SET since = EXCLUDED.since, reason = EXCLUDED.reason`;
  await q.query(sql, [job, pause.since, pause.reason]);
}

type Through = Pick<AdvisoryLock, "transaction" | "lost">;

/** `insertRun` with `also`, in one transaction through `through` (a run lock, or the pool), tried again a few times unless the lock is lost. */
export async function storeRecord(database: Database, through: Through, record: RunRecord, place: RunPlace, also?: (client: Queryable) => Promise<unknown>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      return await through.transaction(async (client) => {
        await also?.(client);
        await insertRun(database, client, record, place);
      });
    } catch (error) {
      if (tries >= STORE_TRIES || through.lost.aborted) throw error;
      await sleep(STORE_GAP_MS);
    }
  }
}

/** Where the record of a queued run is filed: its tick and attempt, by this worker. */
export function placeOf(ctx: PgCronContext, run: QueuedRun): RunPlace {
  return { tick: run.tick, attempt: run.retryCount + 1, worker: ctx.worker };
}

/**
 * Fails and records each run pg-boss thinks active: only the holder of the job's run lock makes a run active, so to that holder
 * its worker is gone. Retried once (pg-boss sends it again), then failed for good. A run its worker recorded before losing its
 * lock is completed instead. Resolves to the records.
 */
export async function reapOrphans(ctx: PgCronContext, job: CronJob, lock: AdvisoryLock): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (const run of await ctx.queue.active(job.name)) {
    const place = placeOf(ctx, run);
    const recorded = `SELECT 1 FROM ${ctx.database.table("cron_runs")} WHERE job = $1 AND tick = $2 AND attempt = $3 LIMIT 1`;
    if ((await ctx.database.pool.query(recorded, [job.name, place.tick, place.attempt])).rows.length > 0) {
      await lock.transaction((client) => ctx.queue.complete(client, job.name, run.id));
      continue;
    }
    const now = ctx.clock.now();
    const retried = run.retryCount < RETRY_LIMIT;
    const detail = retried
      ? "its worker stopped mid-run (killed, or cut off from the database); it runs once more on a worker"
      : "its worker stopped mid-run again, on its retry; not run again for this tick";
    const record: RunRecord = { job: job.name, start: new Date(run.startedOn?.getTime() ?? now).toISOString(), end: new Date(now).toISOString(), status: "error", detail };
    await storeRecord(ctx.database, lock, record, place, (client) => ctx.queue.failOrphan(client, job.name, run, "the worker running it stopped mid-run"));
    ctx.log(`cron: ${job.name}: the run for ${run.tick.toISOString()} lost its worker; ${retried ? "retrying it once" : "failed for good"}`);
    records.push(record);
  }
  return records;
}

/**
 * The lease of a run fetched under `lock`. Its record is stored with the run's completion on the lock's connection; when that
 * fails (the lock lost on the way), the record alone goes through the pool, so the next holder finds it recorded and completes
 * it rather than running it again. A run whose lock was lost mid-run stores nothing: the next holder retries it.
 */
export function fetchedLease(ctx: PgCronContext, job: CronJob, run: QueuedRun, lock: AdvisoryLock, onRelease: () => void): RunLease {
  const place = placeOf(ctx, run);
  const complete = (client: Queryable): Promise<void> => ctx.queue.complete(client, job.name, run.id);
  const viaPool: Through = { transaction: (fn) => inTransaction(ctx.database, fn), lost: new AbortController().signal };
  let released: Promise<void> | undefined;
  return {
    lost: lock.lost,
    async finish(record) {
      if (lock.lost.aborted) {
        ctx.log(`cron: ${job.name}: lost its run lock mid-run (${describeDatabaseError(lock.lost.reason)}); the run was aborted and is left to the next worker to retry`);
        return false;
      }
      try {
        await storeRecord(ctx.database, lock, record, place, complete).catch(() => storeRecord(ctx.database, viaPool, record, place));
        return true;
      } catch (error) {
        ctx.log(`cron: ${job.name}: its run for ${run.tick.toISOString()} ended ${record.status} but could not be recorded (${describeDatabaseError(error)}); the next worker will find it orphaned and run it once more`);
        return false;
      }
    },
    // Once only: a second call must not release a later attempt's hold on the job.
    release: () => (released ??= lock.release().then(onRelease)),
  };
}

/** The lease of `cron run JOB`: its record (no tick) stored through the lock's connection; a failure is logged and the record still shown. */
export function handLease(database: Database, worker: string, log: (line: string) => void, lock: AdvisoryLock): RunLease {
  return {
    lost: lock.lost,
    async finish(record) {
      await storeRecord(database, lock, record, { worker }).catch((error: unknown) => log(`cron: could not append to cron_runs: ${describeDatabaseError(error)}`));
      return true;
    },
    release: () => lock.release(),
  };
}

/**
 * Whether a fetched run comes too late to be worth running: later than one interval of its job after its tick (for a retry:
 * after its dead worker's attempt was failed), as when every worker was stopped.
 */
export function isStale(job: CronJob, run: QueuedRun, now: number): boolean {
  const since = run.retryCount === 0 ? run.tick : run.availableSince;
  const next = nextRunTime(job.schedule, job.tz, run.tick);
  return next !== undefined && now > since.getTime() + (next.getTime() - run.tick.getTime());
}
