// Cron on a workspace's files: one scheduling process per workspace (a lock file; a second stands by), a lock file per running job, runs.jsonl and state.json.
//
// Why a second `miniclaw cron` stands by rather than refuses: the lock file is judged stale by
// whether its owner lives (fs/file-lock.ts), so a scheduler killed outright leaves a file the next
// one takes over at once, and a lock can never outlive its process. The standby polls it every
// second and takes over within about one poll of the first one's end, SIGKILL included; while the
// first lives nothing here ticks, so no tick can run twice. A job's own lock file is held by
// whichever process runs it (the scheduler, or `cron run JOB` by hand): a tick that comes while it is
// held is skipped, as one that comes while the scheduler's own run goes on. Across hosts sharing a
// folder an owner's life cannot be seen, so a standby there waits until the first releases its lock.
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { systemClock } from "../deps.js";
import { ConfigError } from "../errors.js";
import { acquireFileLock, type LockOwner } from "../fs/file-lock.js";
import { readRegularText } from "../fs/regular-file.js";
import { STILL_GOING, steadyLease, type Claim, type ClaimsOptions, type CronBackend, type CronClaims, type RunLease } from "./claims.js";
import type { CronJob } from "./cron-config.js";
import { skippedRecord, type RunRecord } from "./cron-runs.js";
import { fileCronStore, type CronStore } from "./cron-store.js";

/** The lock file of the process that schedules a workspace's jobs, inside the workspace. */
export const SCHEDULER_LOCK_FILE = join("cron", "scheduler.lock");
/** How often a standby scheduler looks whether the first one has stopped. */
export const STANDBY_POLL_MS = 1_000;

/** The files backend of `workspace`: runs.jsonl and state.json, and the lock files that keep one process on each tick. */
export function fileCron(workspace: string): CronBackend {
  const store = fileCronStore(workspace);
  return {
    store,
    claimRun: async (job, log) => runLease(workspace, store, job, log),
    async openClaims(_jobs, options) {
      const claims = fileClaims(workspace, store, options);
      // Tried once here, so a standby says so before anything else is printed.
      await claims.poll([]);
      return claims;
    },
  };
}

/**
 * The claims of a scheduler on `workspace`: it claims every tick while it holds the workspace's
 * scheduler lock, taken at its first poll; another process holding it is named in one line, and
 * this one stands by (its ticks do nothing) until it can take the lock over.
 */
function fileClaims(workspace: string, store: CronStore, options: ClaimsOptions): CronClaims {
  const clock = options.clock ?? systemClock;
  let release: (() => Promise<void>) | undefined;
  let standingBy = false;
  let closed = false;
  const record = async (records: RunRecord[]): Promise<RunRecord[]> => {
    for (const r of records) await storeQuietly(store, r, options.log);
    return records;
  };
  return {
    pollMs: options.pollMs ?? STANDBY_POLL_MS,
    async tick(job, _at, running): Promise<Claim> {
      if (!release || (await store.readPauses())[job.name]) return { job, records: [] };
      if (running) return { job, records: await record([skippedRecord(job, clock.now(), STILL_GOING)]) };
      const lease = await runLease(workspace, store, job, options.log);
      return lease ? { job, records: [], lease } : { job, records: await record([skippedRecord(job, clock.now(), STILL_GOING)]) };
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
async function runLease(workspace: string, store: CronStore, job: CronJob, log: (line: string) => void): Promise<RunLease | undefined> {
  const release = await takeLock(join(workspace, "cron", `run-${job.name}.lock`), "cron job", job.name).catch(() => undefined);
  if (!release) return undefined;
  const finish = async (record: RunRecord): Promise<boolean> => (await storeQuietly(store, record, log), true);
  return steadyLease(finish, release);
}

/** Takes a lock file without waiting (its folder created first); throws when a live process holds it. */
async function takeLock(path: string, label: string, subject: string): Promise<() => Promise<void>> {
  await mkdir(join(path, ".."), { recursive: true });
  return acquireFileLock(path, { timeoutMs: 0, clock: systemClock, label, subject, makeError: (message, cause) => new ConfigError(message, { cause }) });
}

/** The one line of a scheduler that stands by: the pid and host of the one holding the lock, or why the lock could not be taken. */
async function standbyLine(path: string, workspace: string, error: unknown): Promise<string> {
  const owner = await readRegularText(path).then((raw) => JSON.parse(raw) as Partial<LockOwner>).catch(() => undefined);
  if (typeof owner?.pid !== "number") return `cron: ${error instanceof Error ? error.message : String(error)}; trying again every few seconds`;
  return `cron: pid ${owner.pid} on ${owner.hostname ?? hostname()} runs the jobs of ${workspace}; standing by to take over when it stops`;
}

/** Appends the record and stores a pause it carries; a failure is logged, and the scheduler goes on. */
async function storeQuietly(store: CronStore, record: RunRecord, log: (line: string) => void): Promise<void> {
  const attempt = async (what: string, write: () => Promise<void>): Promise<void> => {
    try {
      await write();
    } catch (error) {
      log(`cron: could not ${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  await attempt(`append to ${store.runsName}`, () => store.appendRun(record));
  if (record.status === "paused") await attempt("store the pause", () => store.setPause(record.job, { since: record.end, reason: record.detail ?? "paused" }));
}
