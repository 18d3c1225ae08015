// Who may run a tick: the claims seam between the one scheduler and what coordinates processes, the claims of a lone process,
// and those of a workspace's files: one scheduling process per workspace (a lock file), a lock file per running job.
//
// A second `miniclaw cron` on the files stands by rather than refuses: a lock file is stale once its owner is dead (fs/file-lock.ts),
// so a scheduler killed outright is taken over within one standby poll, and while it lives the standby ticks nothing. Across hosts
// sharing a folder an owner's life cannot be seen: a standby there waits until the first releases its lock.
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { systemClock, type Clock } from "../deps.js";
import { ConfigError, messageOf } from "../errors.js";
import { acquireFileLock, type LockOwner } from "../fs/file-lock.js";
import { readRegularText } from "../fs/regular-file.js";
import type { CronJob } from "./cron-config.js";
import { skippedRecord, type RunRecord } from "./cron-runs.js";
import { appendRunRecord, fileCronStore, pauseOf, readPausedJobs, setJobPause, type CronStore } from "./cron-store.js";

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

/** The lock file of the process that schedules a workspace's jobs, inside the workspace. */
const SCHEDULER_LOCK_FILE = join("cron", "scheduler.lock");
/** How often a standby scheduler looks whether the first one has stopped. */
const STANDBY_POLL_MS = 1_000;

/** The files backend of `workspace`: runs.jsonl and state.json, and the lock files that keep one process on each tick. */
export function fileCron(workspace: string): CronBackend {
  return {
    store: fileCronStore(workspace),
    claimRun: async (job, log) => runLease(workspace, job, log),
    async openClaims(_jobs, options) {
      const claims = fileClaims(workspace, options);
      // Tried once here, so a standby says so before anything else is printed.
      await claims.poll([]);
      return claims;
    },
  };
}

/** Claims every tick while holding the scheduler lock (taken at the first poll); otherwise names its holder once and stands by. */
function fileClaims(workspace: string, options: ClaimsOptions): CronClaims {
  const clock = options.clock ?? systemClock;
  let release: (() => Promise<void>) | undefined;
  let standingBy = false;
  let closed = false;
  return {
    pollMs: options.pollMs ?? STANDBY_POLL_MS,
    async tick(job, _at, running) {
      if (!release || (await readPausedJobs(workspace))[job.name]) return { job, records: [] };
      const lease = running ? undefined : await runLease(workspace, job, options.log);
      if (lease) return { job, records: [], lease };
      const skipped = skippedRecord(job, clock.now(), STILL_GOING);
      await storeQuietly(workspace, skipped, options.log);
      return { job, records: [skipped] };
    },
    async poll() {
      if (release || closed) return [];
      const path = join(workspace, SCHEDULER_LOCK_FILE);
      try {
        release = await takeLock(path, "cron scheduler", workspace);
        if (closed) await release();
        else if (standingBy) options.log(`cron: the scheduler before this one has stopped; this one runs the jobs of ${workspace} now`);
      } catch (error) {
        if (!standingBy) options.log(await standbyLine(path, workspace, error));
        standingBy = true;
      }
      return [];
    },
    async close() {
      closed = true;
      await release?.();
    },
  };
}

/** A lease on `job`'s lock file, or undefined while another process (or another run here) holds it. */
async function runLease(workspace: string, job: CronJob, log: (line: string) => void): Promise<RunLease | undefined> {
  const release = await takeLock(join(workspace, "cron", `run-${job.name}.lock`), "cron job", job.name).catch(() => undefined);
  if (!release) return undefined;
  return steadyLease((record) => storeQuietly(workspace, record, log).then(() => true), release);
}

/** Takes a lock file without waiting (its folder created first); throws when a live process holds it. */
async function takeLock(path: string, label: string, subject: string): Promise<() => Promise<void>> {
  await mkdir(join(path, ".."), { recursive: true });
  return acquireFileLock(path, { timeoutMs: 0, clock: systemClock, label, subject, makeError: (message, cause) => new ConfigError(message, { cause }) });
}

/** The one line of a scheduler that stands by: the pid and host of the one holding the lock, or why the lock could not be taken. */
async function standbyLine(path: string, workspace: string, error: unknown): Promise<string> {
  const owner = await readRegularText(path).then((raw) => JSON.parse(raw) as Partial<LockOwner>).catch(() => undefined);
  if (typeof owner?.pid !== "number") return `cron: ${messageOf(error)}; trying again every few seconds`;
  return `cron: pid ${owner.pid} on ${owner.hostname ?? hostname()} runs the jobs of ${workspace}; standing by to take over when it stops`;
}

/** Appends the record, and stores the pause it carries; a failure is logged, and the scheduler goes on. */
async function storeQuietly(workspace: string, record: RunRecord, log: (line: string) => void): Promise<void> {
  const complain = (what: string) => (error: unknown): void => log(`cron: could not ${what}: ${messageOf(error)}`);
  await appendRunRecord(workspace, record).catch(complain("append to runs.jsonl"));
  const pause = pauseOf(record);
  if (pause) await setJobPause(workspace, record.job, pause).catch(complain("store the pause"));
}
