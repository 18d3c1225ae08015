// Cron claims on PostgreSQL: every worker ticks, one wins each tick and sends its run to pg-boss, the holder of a job's run lock runs it.
import { setTimeout as sleep } from "node:timers/promises";
import { systemClock } from "../deps.js";
import { STILL_GOING, type Claim, type ClaimsOptions, type CronBackend, type CronClaims } from "../cron/claims.js";
import type { CronJob } from "../cron/cron-config.js";
import { messageOf } from "../errors.js";
import { skippedRecord, type RunRecord } from "../cron/cron-runs.js";
import { LockLostError, takeAdvisoryLock, type AdvisoryLock } from "./advisory-lock.js";
import { openCronQueue, runLock } from "./cron-pg.js";
import { databaseCronStore, fetchedLease, handLease, insertRun, isStale, placeOf, reapOrphans, STALE_DETAIL, storeRecord, type PgCronContext } from "./cron-pg-runs.js";
import { describeDatabaseError, isConnectionLost, PROCESS_NAME, type Database } from "./database.js";
import { inTransaction } from "./transaction.js";

/** How often each worker asks (one query for all its jobs) which jobs have a run waiting or orphaned. */
const POLL_MS = 1_000;
/** Runs one worker goes on with at once, by default: each holds two turn connections (its run lock's, its turn's); the rest wait for another worker. */
const DEFAULT_MAX_RUNS = 8;
/** After winning a tick, how many times (and how far apart) the winner tries the run lock a poller may hold for a moment. */
const EAGER_TRIES = 8;
const EAGER_GAP_MS = 100;

/** Options of the PostgreSQL claims: those of every backend, and the worker's name and room. */
export interface PgClaimsOptions extends ClaimsOptions {
  /** This process in cron_ticks and cron_runs; default its connections' application name (`miniclaw pid N on HOST`). */
  worker?: string;
  /** Runs going on at once in this worker; default 8, never more than half the turn connections. */
  maxRuns?: number;
}

/** Cron on PostgreSQL: the CronBackend of `openPostgres(...).cron`. */
export interface PgCron extends CronBackend {
  openClaims(jobs: readonly CronJob[], options: PgClaimsOptions): Promise<CronClaims>;
}

/** The cron backend of `database`: the cron_runs and cron_pauses store, run locks, and claims over pg-boss. */
export function pgCron(database: Database): PgCron {
  return {
    store: databaseCronStore(database),
    async claimRun(job, log) {
      const taken = await takeAdvisoryLock(database, runLock(job.name), 0);
      return "busy" in taken ? undefined : handLease(database, PROCESS_NAME, log, taken);
    },
    async openClaims(jobs, options) {
      const queue = await openCronQueue(database, jobs.filter((job) => job.enabled).map((job) => job.name), options.log);
      const maxRuns = Math.max(1, Math.min(options.maxRuns ?? DEFAULT_MAX_RUNS, Math.floor(database.config.turnConnections / 2)));
      const context = { database, queue, clock: options.clock ?? systemClock, log: options.log, worker: options.worker ?? PROCESS_NAME };
      return pgClaims({ ...context, maxRuns, attempting: new Set(), closing: false, outage: outageLog(options.log) }, options.pollMs ?? POLL_MS);
    },
  };
}

/** One worker's claims: its context, the jobs it is attempting or running (at most `maxRuns`), whether it is closing, its outage log. */
type Worker = PgCronContext & { maxRuns: number; attempting: Set<string>; closing: boolean; outage: ReturnType<typeof outageLog> };

/**
 * At each tick the worker whose insert into cron_ticks wins does nothing for a paused job, records a `skipped` run when a run of
 * the job is waiting or going anywhere, or else sends the run to pg-boss in the same transaction and tries to run it at once.
 * Only the holder of a job's run lock fetches and runs its runs, reaping dead workers' first. Failures are logged once per outage.
 */
function pgClaims(w: Worker, pollMs: number): CronClaims {
  return {
    pollMs,
    async tick(job, at) {
      try {
        const claim = await claimTick(w, job, at);
        w.outage.ok();
        if (claim !== "sent") return { job, records: claim ? [claim] : [] };
      } catch (error) {
        w.outage.failed(`the tick of ${job.name} at ${at.toISOString()}`, error);
        return { job, records: [] };
      }
      // A poller may hold the run lock for a moment: the winner tries a few times.
      for (let i = 0; i < EAGER_TRIES && !w.closing && !isFull(w); i++) {
        const claim = await attempt(w, job);
        if (claim !== "locked-out") return claim;
        await sleep(EAGER_GAP_MS);
      }
      return { job, records: [] };
    },
    async poll(idle) {
      if (idle.length === 0 || isFull(w) || w.closing) return [];
      let names: Set<string>;
      try {
        names = new Set(await w.queue.withWork(idle.map((job) => job.name)));
        w.outage.ok();
      } catch (error) {
        w.outage.failed("polling", error);
        return [];
      }
      const claims = await Promise.all(idle.filter((job) => names.has(job.name)).map((job) => attempt(w, job)));
      return claims.filter((claim): claim is Claim => claim !== "locked-out");
    },
    async close() {
      w.closing = true;
      await w.queue.stop();
    },
  };
}

const isFull = (w: Worker): boolean => w.attempting.size >= w.maxRuns;

/** Takes the job's run lock if free, reaps orphans, fetches one waiting run and leases it; never throws. */
async function attempt(w: Worker, job: CronJob): Promise<Claim | "locked-out"> {
  if (w.attempting.has(job.name) || isFull(w)) return { job, records: [] };
  w.attempting.add(job.name);
  let lock: AdvisoryLock | undefined;
  let leased = false;
  try {
    const taken = await takeAdvisoryLock(w.database, runLock(job.name), 0);
    if ("busy" in taken) return "locked-out";
    lock = taken;
    const records = await reapOrphans(w, job, lock);
    const run = w.closing ? undefined : await w.queue.fetch(lock.client, job.name);
    if (run && isStale(job, run, w.clock.now())) {
      const stale = skippedRecord(job, w.clock.now(), STALE_DETAIL);
      await storeRecord(w.database, lock, stale, placeOf(w, run), (client) => w.queue.complete(client, job.name, run.id));
      records.push(stale);
    } else if (run && !lock.lost.aborted) {
      leased = true;
      return { job, records, lease: fetchedLease(w, job, run, lock, () => w.attempting.delete(job.name)) };
    }
    w.outage.ok();
    return { job, records };
  } catch (error) {
    w.outage.failed(`running ${job.name}`, error);
    return { job, records: [] };
  } finally {
    if (!leased) {
      await lock?.release();
      w.attempting.delete(job.name);
    }
  }
}

/** Claims (job, at): "sent" when this worker won it and sent a run, the record of a skipped tick (stored in the claim's transaction), or undefined. */
function claimTick(w: Worker, job: CronJob, at: Date): Promise<"sent" | RunRecord | undefined> {
  const { database } = w;
  return inTransaction(database, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [database.lockKey(`cron-tick:${job.name}`)]);
    const claim = await client.query(`INSERT INTO ${database.table("cron_ticks")} (job, tick, claimed_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING tick`, [job.name, at, w.worker]);
    if (claim.rows.length === 0) return undefined;
    // A claim only has to outlive the clock skew between workers; a day of them is plenty.
    await client.query(`DELETE FROM ${database.table("cron_ticks")} WHERE job = $1 AND tick < $2::timestamptz - interval '1 day'`, [job.name, at]);
    const paused = await client.query(`SELECT 1 FROM ${database.table("cron_pauses")} WHERE job = $1`, [job.name]);
    if (paused.rows.length > 0) return undefined;
    if (await w.queue.busy(client, job.name)) {
      const record = skippedRecord(job, w.clock.now(), STILL_GOING);
      await insertRun(database, client, record, { tick: at, worker: w.worker });
      return record;
    }
    await w.queue.send(client, job.name, at);
    return "sent";
  });
}

/** Failures of the database logged once per outage (until something succeeds again); other failures each get their line. */
function outageLog(log: (line: string) => void): { failed: (what: string, error: unknown) => void; ok: () => void } {
  let down = false;
  return {
    failed(what, error) {
      if (!isConnectionLost(error) && !(error instanceof LockLostError)) return log(`cron: ${what}: ${messageOf(error)}`);
      if (!down) log(`cron: lost the database (${describeDatabaseError(error)}); ticks and runs wait until it is back`);
      down = true;
    },
    ok: () => void (down = false),
  };
}
