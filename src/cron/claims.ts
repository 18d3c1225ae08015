// Who may run a tick: the claims seam between the one scheduler and what coordinates processes, and the claims of a lone process.
import { systemClock, type Clock } from "../deps.js";
import type { CronJob } from "./cron-config.js";
import { skippedRecord, type RunRecord } from "./cron-runs.js";
import { pauseOf, type CronStore } from "./cron-store.js";

/** The detail of a tick skipped because a run of its job is still going (here or in another process). */
export const STILL_GOING = "the previous run is still going";

/** A run this process may start now; held until `release`. */
export interface RunLease {
  /** Aborts when the claim is lost mid-run (PostgreSQL: the connection holding the job's run lock): the run must stop. Never aborts for files. */
  readonly lost: AbortSignal;
  /**
   * Stores the finished run's record, and the job's pause when its status is `paused`. Resolves to whether the record should be
   * reported: false when the claim was lost and nothing was stored (a line says so). Another failure to store is logged, and the
   * record still reported. Never throws.
   */
  finish(record: RunRecord): Promise<boolean>;
  /** Gives the claim back. Idempotent; never throws. */
  release(): Promise<void>;
}

/** What a claim came to: records of what did not run (already stored: a skipped tick, a dead worker's run), and the lease of a run to start now. */
export type Claim = { job: CronJob; records: RunRecord[]; lease?: RunLease };

/**
 * The scheduler's seam: who may run each tick, across however many processes share the jobs. The scheduler keeps the timers and
 * runs what it is leased; the claims decide, store and coordinate. `tick` and `poll` should not throw: a claims object logs its
 * own failures (it knows an outage from a bug); the scheduler logs whatever is thrown all the same and goes on.
 */
export interface CronClaims {
  /** How often the scheduler calls `poll`, in ms (jittered by ±20 %); the first call comes at start. */
  readonly pollMs: number;
  /**
   * A tick of `job`, named by its scheduled time `at` (whole seconds); `running`: this process is running or claiming the job
   * now. Nothing comes of it for a paused job, or a tick another process has.
   */
  tick(job: CronJob, at: Date, running: boolean): Promise<Claim>;
  /** Runs waiting for a worker among the jobs this process is not running (PostgreSQL: retries, runs a busy worker left). Files stand by here. */
  poll(idle: readonly CronJob[]): Promise<Claim[]>;
  /** Gives back what the claims hold (a lock file, pg-boss); the scheduler calls it once stopped. Never throws. */
  close(): Promise<void>;
}

/** Options of `CronBackend.openClaims`. */
export interface ClaimsOptions {
  /** Notices: standing by, taking over, a dead worker found, an outage. Must not throw. */
  log: (line: string) => void;
  /** Timestamps of the records it stores; default the system clock. */
  clock?: Clock;
  /** Default: each backend's own. */
  pollMs?: number;
}

/** Where a workspace's cron runs are kept and coordinated: its files, or PostgreSQL (`openPostgres(...).cron`). */
export interface CronBackend {
  /** The run log and the pauses, for `cron list`, `cron runs` and `cron run`. */
  readonly store: CronStore;
  /**
   * `cron run JOB`: a lease on the job, as a scheduler's run holds it (a tick meanwhile is skipped), or undefined while a run of
   * the job is going anywhere. `log` gets a line when the run's record cannot be stored. Throws what its medium throws.
   */
  claimRun(job: CronJob, log: (line: string) => void): Promise<RunLease | undefined>;
  /** The claims of a scheduler of `jobs`. Throws ConfigError when coordination cannot start (PostgreSQL: pg-boss). */
  openClaims(jobs: readonly CronJob[], options: ClaimsOptions): Promise<CronClaims>;
}

const NEVER = new AbortController().signal;

/** A lease that never aborts; `finish` and `release` as given. For claims whose runs cannot be cut off (files). */
export function steadyLease(finish: RunLease["finish"], release: RunLease["release"]): RunLease {
  return { lost: NEVER, finish, release };
}

/**
 * The claims of a process alone (`startScheduler`'s default): a tick runs unless its job is running here (a `skipped` record)
 * or a run of it paused it (nothing, kept in memory). Nothing is stored: the scheduler's `onRecord` gets every record.
 */
export function localClaims(clock: Clock = systemClock): CronClaims {
  const paused = new Set<string>();
  const finish = async (record: RunRecord): Promise<boolean> => {
    if (pauseOf(record)) paused.add(record.job);
    return true;
  };
  return {
    pollMs: 1_000,
    async tick(job, _at, running) {
      if (paused.has(job.name)) return { job, records: [] };
      if (running) return { job, records: [skippedRecord(job, clock.now(), STILL_GOING)] };
      return { job, records: [], lease: steadyLease(finish, async () => {}) };
    },
    poll: async () => [],
    close: async () => {},
  };
}
