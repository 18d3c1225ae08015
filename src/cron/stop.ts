// The bounded stop of a scheduler: timers cancelled, a grace period for the runs going on, then an abort and a short settle.
import type { Clock } from "../deps.js";
import type { CronJob } from "./cron-config.js";
import type { JobTimer, Scheduler } from "./cron.js";

/** After the grace period, aborted runs get this long to settle before `stop` resolves anyway. */
export const ABORT_SETTLE_MS = 1_000;

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


/** Waits until every promise settles or `ms` pass, whichever is first, leaving no timer behind. Never rejects. */
export async function settleOrTimeout(promises: ReadonlyArray<Promise<unknown> | undefined>, ms: number, clock: Clock): Promise<void> {
  const timeout = new AbortController();
  await Promise.race([Promise.allSettled(promises), clock.sleep(ms, timeout.signal).catch(() => undefined)]);
  timeout.abort();
}
