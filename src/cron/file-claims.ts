// Cron on a workspace's files: one scheduling process per workspace (a lock file; a second stands by), a lock file per running job, runs.jsonl and state.json.
//
// A second `miniclaw cron` stands by rather than refuses: a lock file is stale once its owner is dead (fs/file-lock.ts), so a
// scheduler killed outright is taken over within one standby poll, and while it lives the standby ticks nothing. Across hosts
// sharing a folder an owner's life cannot be seen: a standby there waits until the first releases its lock.
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { systemClock } from "../deps.js";
import { ConfigError, messageOf } from "../errors.js";
import { acquireFileLock, type LockOwner } from "../fs/file-lock.js";
import { readRegularText } from "../fs/regular-file.js";
import { STILL_GOING, steadyLease, type ClaimsOptions, type CronBackend, type CronClaims, type RunLease } from "./claims.js";
import type { CronJob } from "./cron-config.js";
import { skippedRecord, type RunRecord } from "./cron-runs.js";
import { appendRunRecord, fileCronStore, pauseOf, readPausedJobs, setJobPause } from "./cron-store.js";

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
