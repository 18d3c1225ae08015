// The one scheduler: cron expressions, node-schedule's timers, ticks claimed through CronClaims, one run per job at a time, bounded stop. The only home of node-schedule.
import { createRequire } from "node:module";
import type CronParser from "cron-parser";
import type NodeSchedule from "node-schedule";
import { systemClock, type Clock } from "../deps.js";
import { hasEnded, type CronJob } from "./cron-config.js";
import { messageOf } from "../errors.js";
import { executeRun, type RunJob, type RunRecord } from "./cron-runs.js";
import { localClaims, type Claim, type CronClaims } from "./claims.js";
import { pauseOf } from "./cron-store.js";

// Required on first use, not imported: a program importing the library for its loop pays nothing for cron.
const requireCjs = createRequire(import.meta.url);
let cronParserModule: typeof CronParser | undefined;
let nodeScheduleModule: typeof NodeSchedule | undefined;
const cronParser = (): typeof CronParser => (cronParserModule ??= requireCjs("cron-parser") as typeof CronParser);
const nodeSchedule = (): typeof NodeSchedule => (nodeScheduleModule ??= requireCjs("node-schedule") as typeof NodeSchedule);

/** After the grace period, aborted runs get this long to settle before `stop` resolves anyway. */
export const ABORT_SETTLE_MS = 1_000;

/** Checks a cron expression (5 fields, or 6 with seconds first, or an alias such as `@daily`) in time zone `tz`: undefined when good, else why not. */
export function checkSchedule(expression: string, tz?: string): string | undefined {
  const fields = expression.trim().split(/\s+/).length;
  if (!expression.trim().startsWith("@") && (fields < 5 || fields > 6)) {
    return `has ${fields} field${fields === 1 ? "" : "s"}; a cron expression has 5 (minute hour day month weekday) or 6 (seconds first)`;
  }
  try {
    cronParser().parseExpression(expression, tz ? { tz } : {}).next();
    return undefined;
  } catch (error) {
    return `is not a valid cron expression (${messageOf(error)})`;
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

/** A job's timer, as the scheduler holds it: `cancel` stops its ticks. */
export type JobTimer = { cancel(): void };

/** Calls `tick` at each time `job`'s schedule names (with that time when known: claims name ticks by it) until cancelled; null when it never fires. */
export type StartTimer = (job: CronJob, tick: (scheduledAt?: Date) => void) => JobTimer | null;

/** node-schedule's timers, which tick on the wall clock in the job's time zone: the scheduler's default. */
const nodeScheduleTimer: StartTimer = (job, tick) => nodeSchedule().scheduleJob({ rule: job.schedule, ...(job.tz && { tz: job.tz }) }, tick);

export interface SchedulerOptions {
  /** Disabled ones are left out. */
  jobs: readonly CronJob[];
  /** Runs one job; given a signal that aborts at shutdown, or when its claim is lost. Its throws are recorded, never propagated. */
  runJob: RunJob;
  /** Who may run each tick: files, PostgreSQL, or (default) this process alone (`localClaims`). Closed by `stop`. */
  claims?: CronClaims;
  /** Timestamps of records and the grace wait; default the system clock. */
  clock?: Clock;
  /** Default node-schedule's. */
  startTimer?: StartTimer;
  /** Notices: a job paused, shutdown progress, and the claims' own. Must not throw. */
  log: (line: string) => void;
  /** Every finished run and every skipped tick, once its claims stored it, in order of completion. Awaited; a throw is logged. */
  onRecord: (record: RunRecord) => void | Promise<void>;
}

/** `stop` gives running jobs `graceMs`, aborts the rest, waits at most ABORT_SETTLE_MS, then closes the claims; called again, it aborts now. */
export type Scheduler = { stop(graceMs: number): Promise<void> };

/** A scheduled job: its timer, its run while one goes on, and how many claims of it are being asked for (a tick meanwhile counts as coming while it runs). */
type Entry = { job: CronJob; timer: JobTimer | null; running?: { controller: AbortController; done: Promise<void> } | undefined; claiming: number };

type State = { opts: SchedulerOptions; clock: Clock; claims: CronClaims; entries: Entry[]; inflight: Set<Promise<unknown>>; stopping: boolean };

/**
 * Schedules the enabled jobs and returns at once; at each tick the claims lease the run or say what came of it instead. A job
 * never runs twice at once here, and a throwing job never stops the others. A `paused` run's pause is stored by the claims.
 */
export function startScheduler(opts: SchedulerOptions): Scheduler {
  const clock = opts.clock ?? systemClock;
  const state: State = { opts, clock, claims: opts.claims ?? localClaims(clock), entries: [], inflight: new Set(), stopping: false };
  for (const job of opts.jobs.filter((j) => j.enabled)) {
    const entry: Entry = { job, timer: null, claiming: 0 };
    entry.timer = (opts.startTimer ?? nodeScheduleTimer)(job, (scheduledAt) => tick(state, entry, scheduledAt));
    if (!entry.timer) opts.log(`cron: ${job.name} has no future run time for "${job.schedule}"; not scheduled`);
    state.entries.push(entry);
  }
  const stopPolling = pollEvery(state);
  let stopped: Promise<void> | undefined;
  return {
    stop(graceMs) {
      if (stopped) {
        abortRuns(state);
        return stopped;
      }
      state.stopping = true;
      stopPolling();
      stopped = drain(state, graceMs).then(() => state.claims.close());
      return stopped;
    },
  };
}

/** A tick of `entry`'s job, named by its scheduled second: the claims decide, then `settle`. */
function tick(state: State, entry: Entry, scheduledAt?: Date): void {
  if (state.stopping) return;
  const at = new Date(Math.round((scheduledAt?.getTime() ?? state.clock.now()) / 1000) * 1000);
  const running = entry.running !== undefined || entry.claiming > 0;
  entry.claiming += 1;
  const claimed = state.claims.tick(entry.job, at, running).finally(() => (entry.claiming -= 1));
  track(state, `the tick of ${entry.job.name} at ${at.toISOString()}`, claimed.then((claim) => settle(state, claim)));
}

/** Asks the claims for waiting runs at once, then every `pollMs` (±20 %) until stopped; returns the stop. */
function pollEvery(state: State): () => void {
  let timer: NodeJS.Timeout | undefined;
  const poll = async (): Promise<void> => {
    const idle = state.entries.filter((e) => !e.running && e.claiming === 0).map((e) => e.job);
    for (const claim of await state.claims.poll(idle)) track(state, `running ${claim.job.name}`, settle(state, claim));
  };
  const soon = (delayMs: number): void => {
    timer = setTimeout(() => {
      if (state.stopping) return;
      track(state, "polling", poll().finally(() => soon(state.claims.pollMs * (0.8 + Math.random() * 0.4))));
    }, delayMs);
  };
  soon(0);
  return () => clearTimeout(timer);
}

/** Reports what a claim stored, and runs its lease (one run per job at a time); resolves when that run is over. */
async function settle(state: State, claim: Claim): Promise<void> {
  await report(state, claim.records);
  const entry = state.entries.find((e) => e.job.name === claim.job.name);
  const { lease } = claim;
  if (!lease) return;
  if (!entry || entry.running) return lease.release();
  const controller = new AbortController();
  const done = (async () => {
    try {
      const record = await executeRun(entry.job, state.opts.runJob, { clock: state.clock, signal: AbortSignal.any([controller.signal, lease.lost]) });
      if (!(await lease.finish(record))) return;
      await report(state, [record]);
      if (pauseOf(record)) state.opts.log(pauseNotice(entry.job, record));
    } finally {
      await lease.release();
    }
  })().finally(() => (entry.running = undefined));
  entry.running = { controller, done };
  await done;
}

/** A throw of `onRecord` is logged. */
async function report(state: State, records: readonly RunRecord[]): Promise<void> {
  for (const record of records) {
    await Promise.resolve()
      .then(() => state.opts.onRecord(record))
      .catch((error: unknown) => state.opts.log(`cron: could not record the run of ${record.job}: ${messageOf(error)}`));
  }
}

/** Keeps `promise` in the work `stop` waits for; its failure is logged. */
function track(state: State, what: string, promise: Promise<unknown>): void {
  const tracked = promise.catch((error: unknown) => state.opts.log(`cron: ${what}: ${messageOf(error)}`));
  state.inflight.add(tracked);
  void tracked.finally(() => state.inflight.delete(tracked));
}

/** The line logged when a run pauses its job: an ended job (past its `until`) is over, any other waits for a person. */
function pauseNotice(job: CronJob, record: RunRecord): string {
  if (hasEnded(job, Date.parse(record.start))) return `cron: ${job.name} has ended (its until, ${job.until}, has passed): no further runs; miniclaw cron run ${job.name} --force runs it once more`;
  return `cron: ${job.name} is paused: no further runs; miniclaw cron run ${job.name} --force runs it and, when it succeeds, resumes it`;
}

/** Cancels the timers, waits up to `graceMs` for the work in flight, aborts the runs still going and waits at most ABORT_SETTLE_MS more. */
async function drain(state: State, graceMs: number): Promise<void> {
  for (const entry of state.entries) entry.timer?.cancel();
  const running = (): string => state.entries.filter((e) => e.running).map((e) => e.job.name).join(", ");
  if (running()) state.opts.log(`cron: waiting up to ${(graceMs / 1000).toFixed(1)}s for ${running()} to finish`);
  await settleOrTimeout(state, graceMs);
  if (!running()) return;
  state.opts.log(`cron: aborting ${running()}`);
  abortRuns(state);
  await settleOrTimeout(state, ABORT_SETTLE_MS);
  if (running()) state.opts.log(`cron: gave up waiting for ${running()}`);
}

function abortRuns(state: State): void {
  for (const entry of state.entries) entry.running?.controller.abort();
}

/** Waits until the work in flight settles or `ms` pass, whichever is first, leaving no timer behind. Never rejects. */
async function settleOrTimeout(state: State, ms: number): Promise<void> {
  const timeout = new AbortController();
  await Promise.race([Promise.allSettled(state.inflight), state.clock.sleep(ms, timeout.signal).catch(() => undefined)]);
  timeout.abort();
}
