// The scheduler on PostgreSQL: every worker ticks, one wins each tick, the holder of a job's run lock runs it, a dead worker's run is retried once.
import { setTimeout as sleep } from "node:timers/promises";
import type { Clock } from "../deps.js";
import { systemClock } from "../deps.js";
import type { Database, Queryable } from "../db/database.js";
import { ABORT_SETTLE_MS, nodeScheduleTimer, pauseNotice, settleOrTimeout, type JobTimer, type Scheduler, type StartTimer } from "./cron.js";
import type { CronJob } from "./cron-config.js";
import type { CronQueue, QueuedRun } from "./cron-pg.js";
import { executeRun, skippedRecord, type RunJob, type RunRecord } from "./cron-runs.js";
import { inTransaction, insertRunRecord, upsertPause, workerName } from "./cron-table.js";

/** How often each worker looks at each job's queue: retries, and runs whose sender died before running them. */
export const POLL_MS = 1_000;
/** After winning a tick, how many times (and how far apart) the winner tries the run lock a poller may hold for a moment. */
const EAGER_TRIES = 8;
const EAGER_GAP_MS = 100;
/** A run's record and its completion are stored together; a failed store is tried again this many times, this far apart. */
const STORE_TRIES = 5;
const STORE_GAP_MS = 1_000;

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
  /** Notices: a job paused, a worker found dead, shutdown progress. Must not throw. */
  log: (line: string) => void;
  /** Each record once it is stored in cron_runs (runs, skipped ticks, runs of dead workers), to print. Must not throw. */
  onRecord: (record: RunRecord) => void;
  /** This process in cron_ticks and cron_runs; default host and pid. */
  worker?: string;
  /** Default POLL_MS. */
  pollMs?: number;
}

interface Entry {
  job: CronJob;
  timer: JobTimer | null;
  /** This worker is trying the job's run lock, or holds it. */
  attempting: boolean;
  running?: { controller: AbortController; done: Promise<void> } | undefined;
}

/**
 * Schedules the enabled jobs on every worker that calls it; returns at once. At each tick
 * (named by its scheduled second), the worker whose insert into cron_ticks wins: does nothing
 * for a paused job, records a `skipped` run when a run of the job is waiting or going anywhere,
 * or else sends the run to the job's pg-boss queue in the same transaction, then tries to run
 * it at once. A run is only ever fetched and run by the holder of the job's advisory run lock,
 * held on a connection of its own: no two runs of one job overlap. The holder first fails any
 * run pg-boss still thinks active (its worker died; the server freed the lock with its
 * connection): retried once, then failed, and recorded either way. `stop` as `startScheduler`'s.
 */
export function startDatabaseScheduler(opts: DatabaseSchedulerOptions): Scheduler {
  const clock = opts.clock ?? systemClock;
  const worker = opts.worker ?? workerName();
  const { database, queue } = opts;
  const inflight = new Set<Promise<unknown>>();
  let stopping: Promise<void> | undefined;
  const track = (promise: Promise<unknown>): void => {
    inflight.add(promise);
    void promise.finally(() => inflight.delete(promise));
  };
  const fail = (what: string) => (error: unknown) => opts.log(`cron: ${what}: ${error instanceof Error ? error.message : String(error)}`);

  /** Stores `record` (and the job's pause, for a paused run) with `also` in one transaction, then hands it on. */
  const store = async (record: RunRecord, place: { tick?: Date; attempt?: number }, also?: (client: Queryable) => Promise<unknown>): Promise<void> => {
    for (let tries = 1; ; tries++) {
      try {
        await inTransaction(database, async (client) => {
          await also?.(client);
          await insertRunRecord(database, client, record, { ...place, worker });
          if (record.status === "paused") await upsertPause(database, client, record.job, { since: record.end, reason: record.detail ?? "paused" });
        });
        break;
      } catch (error) {
        // Left unstored, a finished run would look orphaned to the next lock holder and run again.
        if (tries >= STORE_TRIES) throw error;
        await sleep(STORE_GAP_MS);
      }
    }
    opts.onRecord(record);
  };

  const tick = (entry: Entry, scheduledAt?: Date): void => {
    if (stopping) return;
    const at = new Date(Math.round((scheduledAt?.getTime() ?? clock.now()) / 1000) * 1000);
    track(
      claimTick(entry.job, at)
        .then((claim) => {
          if (claim === "sent") return eagerRun(entry);
          if (claim !== undefined) opts.onRecord(claim);
          return undefined;
        })
        .catch(fail(`the tick of ${entry.job.name} at ${at.toISOString()}`)),
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
      if (await queue.hasPending(client, job.name)) {
        const record = skippedRecord(job, clock.now(), "the previous run is still going");
        await insertRunRecord(database, client, record, { tick: at, worker });
        return record;
      }
      await queue.send(client, job.name, at);
      return "sent";
    });

  /** The winner of a tick runs it now if it can; a poller may hold the run lock for a moment, so a few tries. */
  const eagerRun = async (entry: Entry): Promise<void> => {
    for (let i = 0; i < EAGER_TRIES && !stopping; i++) {
      if ((await attempt(entry)) === "done") return;
      await sleep(EAGER_GAP_MS);
    }
  };

  /** Takes the job's run lock if free, reaps orphans, fetches and runs one waiting run, releases. */
  const attempt = async (entry: Entry): Promise<"locked-out" | "busy" | "done"> => {
    if (entry.attempting) return "busy";
    entry.attempting = true;
    try {
      const held = await withRunLock(database, entry.job.name, async (lost) => {
        await reapOrphans(entry.job);
        const run = stopping ? undefined : await queue.fetch(entry.job.name);
        if (run) await runFetched(entry, run, lost);
      });
      return held.locked ? "done" : "locked-out";
    } finally {
      entry.attempting = false;
    }
  };

  /** Fails and records each run pg-boss thinks active: to the lock holder, its worker is gone. */
  const reapOrphans = async (job: CronJob): Promise<void> => {
    for (const run of await queue.active(job.name)) {
      const now = clock.now();
      let fate = "";
      const retried = "its worker stopped mid-run (killed, or cut off from the database); it runs once more on a worker";
      const failed = "its worker stopped mid-run again, on its retry; not run again for this tick";
      const record: RunRecord = { job: job.name, start: new Date(run.startedOn?.getTime() ?? now).toISOString(), end: new Date(now).toISOString(), status: "error", detail: "" };
      await store(record, { tick: run.tick, attempt: run.retryCount + 1 }, async (client) => {
        fate = await queue.failOrphan(client, job.name, run, "the worker running it stopped mid-run");
        record.detail = fate === "retried" ? retried : failed;
      });
      opts.log(`cron: ${job.name}: the run for ${run.tick.toISOString()} lost its worker; ${fate === "retried" ? "retrying it once" : "failed for good"}`);
    }
  };

  /** Runs a fetched run to its record; stores the record and completes the pg-boss job together, unless the lock was lost. */
  const runFetched = async (entry: Entry, run: QueuedRun, lost: AbortSignal): Promise<void> => {
    const controller = new AbortController();
    const onLost = (): void => controller.abort();
    lost.addEventListener("abort", onLost, { once: true });
    const done = (async () => {
      const record = await executeRun(entry.job, opts.runJob, { clock, signal: controller.signal });
      if (lost.aborted) {
        opts.log(`cron: ${entry.job.name}: lost the database connection holding its run lock; the run is left to the next worker to retry`);
        return;
      }
      await store(record, { tick: run.tick, attempt: run.retryCount + 1 }, (client) => queue.complete(client, entry.job.name, run.id));
      if (record.status === "paused") opts.log(pauseNotice(entry.job, record));
    })().finally(() => {
      lost.removeEventListener("abort", onLost);
      entry.running = undefined;
    });
    entry.running = { controller, done };
    await done;
  };

  const entries: Entry[] = opts.jobs
    .filter((job) => job.enabled)
    .map((job) => {
      const entry: Entry = { job, timer: null, attempting: false };
      entry.timer = (opts.startTimer ?? nodeScheduleTimer)(job, (scheduledAt) => tick(entry, scheduledAt));
      if (!entry.timer) opts.log(`cron: ${job.name} has no future run time for "${job.schedule}"; not scheduled`);
      return entry;
    });

  const pollMs = opts.pollMs ?? POLL_MS;
  let poller: NodeJS.Timeout | undefined;
  const poll = (): void => {
    poller = setTimeout(() => {
      for (const entry of entries) if (!stopping) track(attempt(entry).catch(fail(`polling ${entry.job.name}`)));
      if (!stopping) poll();
    }, pollMs * (0.8 + Math.random() * 0.4));
  };
  poll();

  return {
    stop(graceMs) {
      const abortRunning = (): void => {
        for (const entry of entries) entry.running?.controller.abort();
      };
      if (stopping) {
        abortRunning();
        return stopping;
      }
      for (const entry of entries) entry.timer?.cancel();
      clearTimeout(poller);
      stopping = (async () => {
        // A run fetched just before the stop is among the in-flight attempts: it gets the grace period too.
        const running = entries.filter((e) => e.running);
        if (running.length > 0) opts.log(`cron: waiting up to ${(graceMs / 1000).toFixed(1)}s for ${running.map((e) => e.job.name).join(", ")} to finish`);
        await settleOrTimeout([...inflight], graceMs, clock);
        const late = entries.filter((e) => e.running);
        if (late.length > 0) opts.log(`cron: aborting ${late.map((e) => e.job.name).join(", ")}`);
        abortRunning();
        await settleOrTimeout([...inflight], ABORT_SETTLE_MS, clock);
        const stuck = entries.filter((e) => e.running);
        if (stuck.length > 0) opts.log(`cron: gave up waiting for ${stuck.map((e) => e.job.name).join(", ")}`);
      })();
      return stopping;
    },
  };
}

/**
 * Runs `fn` while holding `job`'s run lock: a session advisory lock on a connection of the turn
 * pool, taken only if free (`{ locked: false }` at once otherwise). Whoever holds it is the only
 * process that may run the job. `lost` aborts when that connection breaks: the server has then
 * freed the lock and another worker may take over, so the run should stop. Throws what `fn` throws.
 */
export async function withRunLock<T>(database: Database, job: string, fn: (lost: AbortSignal) => Promise<T>): Promise<{ locked: false } | { locked: true; value: T }> {
  const lost = new AbortController();
  let broken = false;
  const onError = (): void => {
    broken = true;
    lost.abort();
  };
  const client = await database.turns.connect();
  client.on("error", onError);
  try {
    const key = database.lockKey(`cron-run:${job}`);
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS locked", [key]);
    if (!rows[0]?.locked) return { locked: false };
    try {
      return { locked: true, value: await fn(lost.signal) };
    } finally {
      await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]).catch(() => (broken = true));
    }
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}
