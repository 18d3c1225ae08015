// The scheduler on PostgreSQL: every worker ticks, one wins each tick, the holder of a job's run lock runs it, a dead worker's run is retried once.
import { setTimeout as sleep } from "node:timers/promises";
import type { Clock } from "../deps.js";
import { systemClock } from "../deps.js";
import { describeDatabaseError, type Database, type Queryable } from "./database.js";
import { inTransaction } from "./transaction.js";
import { gracefulStop, nextRunTime, nodeScheduleTimer, pauseNotice, type RunningEntry, type Scheduler, type StartTimer } from "../cron/cron.js";
import type { CronJob } from "../cron/cron-config.js";
import { RETRY_LIMIT, type CronQueue, type QueuedRun } from "./cron-pg.js";
import { isLostConnection, RunLocks, runLockHeldSql, runLockKey, type RunLock } from "./cron-run-lock.js";
import { executeRun, skippedRecord, type RunJob, type RunRecord } from "../cron/cron-runs.js";
import { hasRunRecord, insertRunRecord, upsertPause, workerName } from "./cron-table.js";

/** How often each worker asks (one query for all its jobs) which jobs have a run waiting or orphaned. */
export const POLL_MS = 1_000;
/**
 * Runs one worker goes on with at once, by default. Each run's turn holds a turn connection for its
 * session (and the worker one more for all its run locks), so this stays well under the turn
 * connections of a process (20 by default); the runs beyond it wait for another worker's poller.
 */
export const DEFAULT_MAX_RUNS = 8;
/** After winning a tick, how many times (and how far apart) the winner tries the run lock a poller may hold for a moment. */
const EAGER_TRIES = 8;
const EAGER_GAP_MS = 100;
/** A run's record and its completion are stored together; a failed store is tried again this many times, this far apart. */
const STORE_TRIES = 5;
const STORE_GAP_MS = 1_000;
/** The detail of a tick's run that no worker started within one interval of its tick (every worker was stopped). */
export const STALE_DETAIL = "not started within one interval of its tick (no worker was running); skipped rather than run late";

export interface DatabaseSchedulerOptions {
  database: Database;
  /** pg-boss, opened for these jobs (`openCronQueue`). Not stopped by the scheduler. */
  queue: CronQueue;
  /** The jobs to schedule; disabled ones are left out. A paused one is scheduled: its ticks do nothing until it is resumed. */
  jobs: readonly CronJob[];
  /** Runs one job; given a signal that aborts at shutdown or when the run lock's connection is lost. */
  runJob: RunJob;
  clock?: Clock;
  startTimer?: StartTimer;
  /** Notices: a job paused, a worker found dead, the database lost (one line per outage), shutdown progress. Must not throw. */
  log: (line: string) => void;
  /** Each record once it is stored in cron_runs (runs, skipped ticks, runs of dead workers), to print. Must not throw. */
  onRecord: (record: RunRecord) => void;
  /** This process in cron_ticks and cron_runs; default its connections' application name. */
  worker?: string;
  /** Default POLL_MS. */
  pollMs?: number;
  /** Runs going on at once in this worker; default DEFAULT_MAX_RUNS, and never more than the turn connections less one. */
  maxRuns?: number;
}

interface Entry extends RunningEntry {
  /** This worker is trying the job's run lock, or holds it. */
  attempting: boolean;
}

/**
 * Schedules the enabled jobs on every worker that calls it; returns at once. At each tick
 * (named by its scheduled second), the worker whose insert into cron_ticks wins: does nothing
 * for a paused job, records a `skipped` run when a run of the job is waiting or going anywhere
 * (its run lock held, by a worker or by `cron run`), or else sends the run to the job's pg-boss
 * queue in the same transaction, then tries to run it at once. A run is only ever fetched and
 * run by the holder of the job's advisory run lock (see RunLocks): no two runs of one job overlap.
 * The holder first fails any run pg-boss still thinks active (its worker died; the server freed
 * the lock with its connection): retried once, then failed, and recorded either way. A run fetched
 * later than one interval after its tick is recorded as skipped. `stop` as `startScheduler`'s.
 */
export function startDatabaseScheduler(opts: DatabaseSchedulerOptions): Scheduler {
  const clock = opts.clock ?? systemClock;
  const { database, queue } = opts;
  const worker = opts.worker ?? workerName(database);
  const maxRuns = Math.max(1, Math.min(opts.maxRuns ?? DEFAULT_MAX_RUNS, database.config.turnConnections - 1));
  const locks = new RunLocks(database, opts.log);
  const inflight = new Set<Promise<unknown>>();
  const track = (promise: Promise<unknown>): void => {
    inflight.add(promise);
    void promise.finally(() => inflight.delete(promise));
  };
  const outage = outageLog(opts.log);
  let stopping = (): boolean => false;

  /**
   * Stores `record` (and the job's pause, for a paused run) with `also`, in one transaction through
   * `lock`'s connection (or the pool's, given `inTransaction`), tried again a few times unless the lock is lost.
   */
  const store = async (lock: Pick<RunLock, "transaction" | "lost">, record: RunRecord, place: { tick: Date; attempt: number }, also?: (client: Queryable) => Promise<unknown>): Promise<void> => {
    for (let tries = 1; ; tries++) {
      try {
        await lock.transaction(async (client) => {
          await also?.(client);
          await insertRunRecord(database, client, record, { ...place, worker });
          if (record.status === "paused") await upsertPause(database, client, record.job, { since: record.end, reason: record.detail ?? "paused" });
        });
        break;
      } catch (error) {
        if (tries >= STORE_TRIES || lock.lost.aborted) throw error;
        await sleep(STORE_GAP_MS);
      }
    }
    opts.onRecord(record);
  };

  const tick = (entry: Entry, scheduledAt?: Date): void => {
    if (stopping()) return;
    const at = new Date(Math.round((scheduledAt?.getTime() ?? clock.now()) / 1000) * 1000);
    track(
      claimTick(entry.job, at)
        .then((claim) => {
          outage.ok();
          if (claim === "sent") return eagerRun(entry);
          if (claim !== undefined) opts.onRecord(claim);
          return undefined;
        })
        .catch(outage.failed(`the tick of ${entry.job.name} at ${at.toISOString()}`)),
    );
  };

  /** Claims (job, at): "sent" when this worker won it and sent a run, the record of a skipped tick (stored in the claim's transaction), or undefined. */
  const claimTick = (job: CronJob, at: Date): Promise<"sent" | RunRecord | undefined> =>
    inTransaction(database, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [database.lockKey(`cron-tick:${job.name}`)]);
      const claim = await client.query(`INSERT INTO ${database.table("cron_ticks")} (job, tick, claimed_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING tick`, [job.name, at, worker]);
      if (claim.rows.length === 0) return undefined;
      // A claim only has to outlive the clock skew between workers; a day of them is plenty.
      await client.query(`DELETE FROM ${database.table("cron_ticks")} WHERE job = $1 AND tick < $2::timestamptz - interval '1 day'`, [job.name, at]);
      const paused = await client.query(`SELECT 1 FROM ${database.table("cron_pauses")} WHERE job = $1`, [job.name]);
      if (paused.rows.length > 0) return undefined;
      // The run lock is held without a pending run by `cron run JOB`: its run is going too.
      const held = await client.query(`SELECT ${runLockHeldSql("$1::bigint")} AS held`, [runLockKey(database, job.name)]);
      if (held.rows[0]?.held || (await queue.hasPending(client, job.name))) {
        const record = skippedRecord(job, clock.now(), "the previous run is still going");
        await insertRunRecord(database, client, record, { tick: at, worker });
        return record;
      }
      await queue.send(client, job.name, at);
      return "sent";
    });

  const full = (): boolean => entries.filter((e) => e.attempting).length >= maxRuns;

  /** The winner of a tick runs it now if it can; a poller may hold the run lock for a moment, so a few tries. */
  const eagerRun = async (entry: Entry): Promise<void> => {
    for (let i = 0; i < EAGER_TRIES && !stopping() && !full(); i++) {
      if ((await attempt(entry)) !== "locked-out") return;
      await sleep(EAGER_GAP_MS);
    }
  };

  /** Takes the job's run lock if free, reaps orphans, fetches and runs one waiting run, releases. */
  const attempt = async (entry: Entry): Promise<"locked-out" | "busy" | "done"> => {
    if (entry.attempting || full()) return "busy";
    entry.attempting = true;
    try {
      const lock = await locks.tryLock(entry.job.name);
      if (!lock) return "locked-out";
      try {
        await reapOrphans(entry.job, lock);
        const run = stopping() ? undefined : await lock.use((client) => queue.fetch(client, entry.job.name));
        if (run) await runFetched(entry, run, lock);
      } finally {
        await lock.release();
      }
      return "done";
    } finally {
      entry.attempting = false;
    }
  };

  /** Fails and records each run pg-boss thinks active (to the lock holder, its worker is gone), in a transaction on the lock's connection. */
  const reapOrphans = async (job: CronJob, lock: RunLock): Promise<void> => {
    for (const run of await queue.active(job.name)) {
      const place = { tick: run.tick, attempt: run.retryCount + 1 };
      if (await hasRunRecord(database, database.pool, job.name, place.tick, place.attempt)) {
        // It finished and was recorded by a worker that lost its lock before completing it: done, not orphaned.
        await lock.transaction((client) => queue.complete(client, job.name, run.id));
        continue;
      }
      const now = clock.now();
      const retried = run.retryCount < RETRY_LIMIT;
      const detail = retried
        ? "its worker stopped mid-run (killed, or cut off from the database); it runs once more on a worker"
        : "its worker stopped mid-run again, on its retry; not run again for this tick";
      const record: RunRecord = { job: job.name, start: new Date(run.startedOn?.getTime() ?? now).toISOString(), end: new Date(now).toISOString(), status: "error", detail };
      await store(lock, record, place, (client) => queue.failOrphan(client, job.name, run, "the worker running it stopped mid-run"));
      opts.log(`cron: ${job.name}: the run for ${run.tick.toISOString()} lost its worker; ${retried ? "retrying it once" : "failed for good"}`);
    }
  };

  /** Runs a fetched run to its record, stored with the run's completion on the lock's connection; a stale run is recorded as skipped. */
  const runFetched = async (entry: Entry, run: QueuedRun, lock: RunLock): Promise<void> => {
    const place = { tick: run.tick, attempt: run.retryCount + 1 };
    const complete = (client: Queryable): Promise<void> => queue.complete(client, entry.job.name, run.id);
    if (isStale(entry.job, run, clock.now())) return store(lock, skippedRecord(entry.job, clock.now(), STALE_DETAIL), place, complete);
    // A lock lost while reaping or fetching: the run never starts (the next holder retries it).
    if (lock.lost.aborted) return;
    const controller = new AbortController();
    const done = (async () => {
      const record = await executeRun(entry.job, opts.runJob, { clock, signal: AbortSignal.any([controller.signal, lock.lost]) });
      if (lock.lost.aborted) {
        opts.log(`cron: ${entry.job.name}: lost its run lock mid-run; the run was aborted and is left to the next worker to retry`);
        return;
      }
      await storeFinished(record, place, lock, complete);
      if (record.status === "paused") opts.log(pauseNotice(entry.job, record));
    })().finally(() => (entry.running = undefined));
    entry.running = { controller, done };
    await done;
  };

  /**
   * Stores a finished run with its completion on the lock's connection. When that fails (the lock
   * lost on the way), the record alone goes through the pool: the next lock holder then finds it
   * recorded and completes it instead of running it again. When even that fails, a line says what follows.
   */
  const storeFinished = async (record: RunRecord, place: { tick: Date; attempt: number }, lock: RunLock, complete: (client: Queryable) => Promise<void>): Promise<void> => {
    try {
      await store(lock, record, place, complete);
    } catch {
      const viaPool = { transaction: <T>(fn: (client: Queryable) => Promise<T>) => inTransaction(database, fn), lost: new AbortController().signal };
      await store(viaPool, record, place).catch((error: unknown) => {
        opts.log(`cron: ${record.job}: its run for ${place.tick.toISOString()} ended ${record.status} but could not be recorded (${describeDatabaseError(error)}); the next worker will find it orphaned and run it once more`);
      });
    }
  };

  const entries: Entry[] = opts.jobs
    .filter((job) => job.enabled)
    .map((job) => {
      const entry: Entry = { job, timer: null, attempting: false };
      entry.timer = (opts.startTimer ?? nodeScheduleTimer)(job, (scheduledAt) => tick(entry, scheduledAt));
      if (!entry.timer) opts.log(`cron: ${job.name} has no future run time for "${job.schedule}"; not scheduled`);
      return entry;
    });

  /** One query for the jobs with work no one holds; an attempt for each, as far as there is room. */
  const pollOnce = async (): Promise<void> => {
    const idle = entries.filter((e) => !e.attempting);
    if (idle.length === 0 || full()) return;
    const names = new Set(await queue.withWork(idle.map((e) => ({ name: e.job.name, lockKey: runLockKey(database, e.job.name) }))));
    outage.ok();
    for (const entry of idle) if (names.has(entry.job.name) && !stopping()) track(attempt(entry).catch(outage.failed(`running ${entry.job.name}`)));
  };
  const pollMs = opts.pollMs ?? POLL_MS;
  let poller: NodeJS.Timeout | undefined;
  const poll = (): void => {
    if (stopping()) return;
    poller = setTimeout(() => {
      if (stopping()) return;
      track(pollOnce().catch(outage.failed("polling")).finally(poll));
    }, pollMs * (0.8 + Math.random() * 0.4));
  };
  poll();

  const stopper = gracefulStop({ entries, pending: () => [...inflight], log: opts.log, clock });
  stopping = stopper.stopping;
  return {
    async stop(graceMs) {
      clearTimeout(poller);
      await stopper.stop(graceMs);
      await locks.close();
    },
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

/** Failures of the database logged once per outage (until something succeeds again); other failures each get their line. */
function outageLog(log: (line: string) => void): { failed: (what: string) => (error: unknown) => void; ok: () => void } {
  let down = false;
  return {
    failed: (what) => (error) => {
      if (!isLostConnection(error)) return log(`cron: ${what}: ${error instanceof Error ? error.message : String(error)}`);
      if (!down) log(`cron: lost the database (${describeDatabaseError(error)}); ticks and runs wait until it is back`);
      down = true;
    },
    ok: () => void (down = false),
  };
}
