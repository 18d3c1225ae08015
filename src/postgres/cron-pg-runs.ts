// What the holder of a job's run lock does on PostgreSQL: reaps a dead worker's run, leases a fetched run, stores each record with its completion.
import { setTimeout as sleep } from "node:timers/promises";
import type { Clock } from "../deps.js";
import type { RunLease } from "../cron/claims.js";
import type { CronJob } from "../cron/cron-config.js";
import { nextRunTime } from "../cron/cron.js";
import type { RunRecord } from "../cron/cron-runs.js";
import type { AdvisoryLock } from "./advisory-lock.js";
import { RETRY_LIMIT, type CronQueue, type QueuedRun } from "./cron-pg.js";
import { hasRunRecord, insertRunRecord, upsertPause, type RunPlace } from "./cron-table.js";
import { describeDatabaseError, type Database, type Queryable } from "./database.js";
import { inTransaction } from "./transaction.js";

/** The detail of a tick's run that no worker started within one interval of its tick (every worker was stopped). */
export const STALE_DETAIL = "not started within one interval of its tick (no worker was running); skipped rather than run late";
/** A run's record and its completion are stored together; a failed store is tried again this many times, this far apart. */
const STORE_TRIES = 5;
const STORE_GAP_MS = 1_000;

/** What the runs of one worker share. */
export interface PgCronContext {
  database: Database;
  queue: CronQueue;
  clock: Clock;
  log: (line: string) => void;
  /** This process in cron_ticks and cron_runs. */
  worker: string;
}

type Through = Pick<AdvisoryLock, "transaction" | "lost">;

/**
 * Stores `record` (and the job's pause, for a paused run) with `also`, in one transaction through
 * `through` (a run lock's connection, or the pool), tried again a few times unless the lock is lost.
 */
export async function storeRecord(ctx: Pick<PgCronContext, "database" | "worker">, through: Through, record: RunRecord, place: RunPlace, also?: (client: Queryable) => Promise<unknown>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await through.transaction(async (client) => {
        await also?.(client);
        await insertRunRecord(ctx.database, client, record, { ...place, worker: ctx.worker });
        if (record.status === "paused") await upsertPause(ctx.database, client, record.job, { since: record.end, reason: record.detail ?? "paused" });
      });
      return;
    } catch (error) {
      if (tries >= STORE_TRIES || through.lost.aborted) throw error;
      await sleep(STORE_GAP_MS);
    }
  }
}

/**
 * Fails and records each run pg-boss thinks active: only the holder of the job's run lock makes a run
 * active, so to that holder its worker is gone. Retried once (pg-boss sends it again), then failed for
 * good. A run its worker recorded before losing its lock is completed instead. Resolves to the records.
 */
export async function reapOrphans(ctx: PgCronContext, job: CronJob, lock: AdvisoryLock): Promise<RunRecord[]> {
  const records: RunRecord[] = [];
  for (const run of await ctx.queue.active(job.name)) {
    const place = { tick: run.tick, attempt: run.retryCount + 1 };
    if (await hasRunRecord(ctx.database, ctx.database.pool, job.name, place.tick, place.attempt)) {
      await lock.transaction((client) => ctx.queue.complete(client, job.name, run.id));
      continue;
    }
    const now = ctx.clock.now();
    const retried = run.retryCount < RETRY_LIMIT;
    const detail = retried
      ? "its worker stopped mid-run (killed, or cut off from the database); it runs once more on a worker"
      : "its worker stopped mid-run again, on its retry; not run again for this tick";
    const record: RunRecord = { job: job.name, start: new Date(run.startedOn?.getTime() ?? now).toISOString(), end: new Date(now).toISOString(), status: "error", detail };
    await storeRecord(ctx, lock, record, place, (client) => ctx.queue.failOrphan(client, job.name, run, "the worker running it stopped mid-run"));
    ctx.log(`cron: ${job.name}: the run for ${run.tick.toISOString()} lost its worker; ${retried ? "retrying it once" : "failed for good"}`);
    records.push(record);
  }
  return records;
}

/**
 * The lease of a run fetched under `lock`. Its record is stored with the run's completion on the
 * lock's connection; when that fails (the lock lost on the way), the record alone goes through the
 * pool, so the next holder finds it recorded and completes it rather than running it again. A run
 * whose lock was lost mid-run stores nothing: the next holder retries it.
 */
export function fetchedLease(ctx: PgCronContext, job: CronJob, run: QueuedRun, lock: AdvisoryLock, onRelease: () => void): RunLease {
  const place = { tick: run.tick, attempt: run.retryCount + 1 };
  const complete = (client: Queryable): Promise<void> => ctx.queue.complete(client, job.name, run.id);
  const viaPool: Through = { transaction: (fn) => inTransaction(ctx.database, fn), lost: new AbortController().signal };
  return {
    lost: lock.lost,
    async finish(record) {
      if (lock.lost.aborted) {
        ctx.log(`cron: ${job.name}: lost its run lock mid-run (${describeDatabaseError(lock.lost.reason)}); the run was aborted and is left to the next worker to retry`);
        return false;
      }
      try {
        await storeRecord(ctx, lock, record, place, complete).catch(() => storeRecord(ctx, viaPool, record, place));
        return true;
      } catch (error) {
        ctx.log(`cron: ${job.name}: its run for ${place.tick.toISOString()} ended ${record.status} but could not be recorded (${describeDatabaseError(error)}); the next worker will find it orphaned and run it once more`);
        return false;
      }
    },
    release: once(async () => {
      await lock.release();
      onRelease();
    }),
  };
}

/** The lease of `cron run JOB`: its record (no tick) stored through the lock's connection; a failure is logged and the record still shown. */
export function handLease(ctx: Pick<PgCronContext, "database" | "worker" | "log">, lock: AdvisoryLock): RunLease {
  return {
    lost: lock.lost,
    async finish(record) {
      await storeRecord(ctx, lock, record, {}).catch((error: unknown) => ctx.log(`cron: could not append to cron_runs: ${describeDatabaseError(error)}`));
      return true;
    },
    release: () => lock.release(),
  };
}

/**
 * Whether a fetched run comes too late to be worth running: later than one interval of its job
 * after its tick (for a retry: after its dead worker's attempt was failed), as when every worker was stopped.
 */
export function isStale(job: CronJob, run: QueuedRun, now: number): boolean {
  const since = run.retryCount === 0 ? run.tick : run.availableSince;
  const next = nextRunTime(job.schedule, job.tz, run.tick);
  return next !== undefined && now > since.getTime() + (next.getTime() - run.tick.getTime());
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
