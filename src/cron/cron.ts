// The scheduler: cron jobs on node-schedule timers, one run per job at a time, pause on hopeless failures, bounded stop. The only home of node-schedule.
import { createRequire } from "node:module";
import type CronParser from "cron-parser";
import type NodeSchedule from "node-schedule";
import { systemClock, type Clock } from "../deps.js";
import { hasEnded, type CronJob } from "./cron-config.js";
import { executeRun, skippedRecord, type RunJob, type RunRecord } from "./cron-runs.js";

// Required on first use, not imported: a program importing the library for its loop pays nothing for cron.
const requireCjs = createRequire(import.meta.url);
let cronParserModule: typeof CronParser | undefined;
let nodeScheduleModule: typeof NodeSchedule | undefined;
const cronParser = (): typeof CronParser => (cronParserModule ??= requireCjs("cron-parser") as typeof CronParser);
const nodeSchedule = (): typeof NodeSchedule => (nodeScheduleModule ??= requireCjs("node-schedule") as typeof NodeSchedule);

/** After the grace period, aborted runs get this long to settle before `stop` resolves anyway. */
export const ABORT_SETTLE_MS = 1_000;

/**
 * Checks a cron expression (5 fields, or 6 with seconds first, or an alias such as
 * `@daily`) in time zone `tz`. Returns undefined when it is good, else why not, in a few words.
 */
export function checkSchedule(expression: string, tz?: string): string | undefined {
  const fields = expression.trim().split(/\s+/).length;
  if (!expression.trim().startsWith("@") && (fields < 5 || fields > 6)) {
    return `has ${fields} field${fields === 1 ? "" : "s"}; a cron expression has 5 (minute hour day month weekday) or 6 (seconds first)`;
  }
  try {
    cronParser().parseExpression(expression, tz ? { tz } : {}).next();
    return undefined;
  } catch (error) {
    return `is not a valid cron expression (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** The next time `expression` fires after `from`, or undefined when it never does (or does not parse). */
export function nextRunTime(expression: string, tz: string | undefined, from: Date): Date | undefined {
  try {
    return cronParser().parseExpression(expression, { currentDate: from, ...(tz && { tz }) }).next().toDate();
  } catch {
    return undefined;
  }
}


/** A job's timer, as the scheduler holds it. */
export interface JobTimer {
  /** No further ticks. */
  cancel(): void;
}

/**
 * Starts the timer of one job: calls `tick` at each time its schedule names, until cancelled,
 * with that scheduled time when the timer knows it (node-schedule does; the database scheduler
 * names each tick by it). Returns null when the schedule never fires. The scheduler's default is
 * `nodeScheduleTimer`; tests pass their own to tick at chosen moments instead of waiting on the wall clock.
 */
export type StartTimer = (job: CronJob, tick: (scheduledAt?: Date) => void) => JobTimer | null;

/** node-schedule's timers, which tick on the wall clock in the job's time zone. */
export const nodeScheduleTimer: StartTimer = (job, tick) => nodeSchedule().scheduleJob({ rule: job.schedule, ...(job.tz && { tz: job.tz }) }, tick);

export interface SchedulerOptions {
  /** The jobs to schedule; disabled ones are left out. */
  jobs: readonly CronJob[];
  /** Runs one job; given a signal that aborts at shutdown. Its throws are recorded, never propagated. */
  runJob: RunJob;
  /** Timestamps of records and the grace wait; default the system clock. */
  clock?: Clock;
  /** Starts each job's timer; default `nodeScheduleTimer`. */
  startTimer?: StartTimer;
  /** Notices: a job paused, shutdown progress. Must not throw. */
  log: (line: string) => void;
  /** Every finished run and every skipped tick, in order of completion. Awaited; a throw is logged. */
  onRecord: (record: RunRecord) => void | Promise<void>;
}

export interface Scheduler {
  /**
   * Stops scheduling, gives running jobs up to `graceMs` to finish, aborts the rest and
   * waits at most ABORT_SETTLE_MS more, then resolves. Calling it again aborts running jobs now.
   */
  stop(graceMs: number): Promise<void>;
}

interface Entry extends RunningEntry {
  paused: boolean;
}

/**
 * Schedules the enabled jobs and returns at once. Each tick runs its job unless a run of
 * it is still going (then a `skipped` record); runs are isolated, so a throwing job never
 * stops the others. A run whose status is `paused` cancels its job's timer; the caller stores
 * the pause (its record says so) and leaves the job out of the next scheduler it starts.
 */
export function startScheduler(opts: SchedulerOptions): Scheduler {
  const clock = opts.clock ?? systemClock;
  const startTimer = opts.startTimer ?? nodeScheduleTimer;
  let stopping = (): boolean => false;
  const report = async (record: RunRecord): Promise<void> => {
    try {
      await opts.onRecord(record);
    } catch (error) {
      opts.log(`cron: could not record the run of ${record.job}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  const tick = (entry: Entry): void => {
    if (stopping() || entry.paused) return;
    if (entry.running) {
      void report(skippedRecord(entry.job, clock.now(), "the previous run is still going"));
      return;
    }
    const controller = new AbortController();
    const done = (async () => {
      const record = await executeRun(entry.job, opts.runJob, { clock, signal: controller.signal });
      const pause = record.status === "paused" && !entry.paused;
      if (pause) {
        entry.paused = true;
        entry.timer?.cancel();
      }
      await report(record);
      if (pause) opts.log(pauseNotice(entry.job, record));
    })().finally(() => {
      entry.running = undefined;
    });
    entry.running = { controller, done };
  };

  const entries: Entry[] = opts.jobs
    .filter((job) => job.enabled)
    .map((job) => {
      const entry: Entry = { job, timer: null, paused: false };
      entry.timer = startTimer(job, () => tick(entry));
      if (!entry.timer) opts.log(`cron: ${job.name} has no future run time for "${job.schedule}"; not scheduled`);
      return entry;
    });

  const stopper = gracefulStop({ entries, pending: () => entries.map((e) => e.running?.done), log: opts.log, clock });
  stopping = stopper.stopping;
  return { stop: stopper.stop };
}

/** A job as a scheduler's stop sees it: running while `running` is set. */
export interface RunningEntry {
  job: CronJob;
  timer: JobTimer | null;
  running?: { controller: AbortController; done: Promise<void> } | undefined;
}

/**
 * The `stop` of a scheduler (see Scheduler.stop) over its `entries`: cancels their timers, waits up
 * to the grace period for `pending()` (the runs, and whatever else the scheduler has in flight),
 * aborts the runs still going and waits at most ABORT_SETTLE_MS more. A second call aborts at once.
 * `stopping` is true from the first call on: the scheduler then starts nothing new.
 */
export function gracefulStop(opts: { entries: readonly RunningEntry[]; pending: () => ReadonlyArray<Promise<unknown> | undefined>; log: (line: string) => void; clock: Clock }): {
  stop: Scheduler["stop"];
  stopping: () => boolean;
} {
  const { entries, log, clock } = opts;
  let stopped: Promise<void> | undefined;
  const runningNames = (): string => entries.filter((e) => e.running).map((e) => e.job.name).join(", ");
  const abortRunning = (): void => {
    for (const entry of entries) entry.running?.controller.abort();
  };
  const stop = (graceMs: number): Promise<void> => {
    if (stopped) {
      abortRunning();
      return stopped;
    }
    for (const entry of entries) entry.timer?.cancel();
    stopped = (async () => {
      if (runningNames()) log(`cron: waiting up to ${(graceMs / 1000).toFixed(1)}s for ${runningNames()} to finish`);
      await settleOrTimeout(opts.pending(), graceMs, clock);
      if (!runningNames()) return;
      log(`cron: aborting ${runningNames()}`);
      abortRunning();
      await settleOrTimeout(opts.pending(), ABORT_SETTLE_MS, clock);
      if (runningNames()) log(`cron: gave up waiting for ${runningNames()}`);
    })();
    return stopped;
  };
  return { stop, stopping: () => stopped !== undefined };
}

/** The line logged when a run pauses its job: an ended job (past its `until`) is over, any other waits for a person. */
export function pauseNotice(job: CronJob, record: RunRecord): string {
  if (hasEnded(job, Date.parse(record.start))) return `cron: ${job.name} has ended (its until, ${job.until}, has passed): no further runs; miniclaw cron run ${job.name} --force runs it once more`;
  return `cron: ${job.name} is paused: no further runs; miniclaw cron run ${job.name} --force runs it and, when it succeeds, resumes it`;
}

/** Waits until every promise settles or `ms` pass, whichever is first, leaving no timer behind. Never rejects. */
export async function settleOrTimeout(promises: ReadonlyArray<Promise<unknown> | undefined>, ms: number, clock: Clock): Promise<void> {
  const timeout = new AbortController();
  await Promise.race([Promise.allSettled(promises), clock.sleep(ms, timeout.signal).catch(() => undefined)]);
  timeout.abort();
}
