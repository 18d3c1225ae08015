// Where the run log and the pauses live: the CronStore contract, and its files (runs.jsonl appended, state.json replaced atomically under a lock).
import { appendFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import * as z from "zod";
import { systemClock } from "../deps.js";
import { ConfigError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readConfigText } from "../fs/config-file.js";
import { withFileLock } from "../fs/file-lock.js";
import { readRegularText } from "../fs/regular-file.js";
import type { RunRecord } from "./cron-runs.js";

/** Where every run is appended, inside the workspace. */
export const RUNS_FILE = join("cron", "runs.jsonl");
/** The pauses, inside the workspace. */
export const CRON_STATE_FILE = join("cron", "state.json");

/**
 * The run log and the pauses of a workspace's jobs, as `cron list`, `cron runs` and `cron run` read them (runs are recorded by
 * their leases). Every method may throw what its medium throws (ConfigError for a state file edited into something else).
 */
export interface CronStore {
  /** Where the run log lives, for messages: `<workspace>/cron/runs.jsonl` or `the cron_runs table of schema S`. */
  readonly runsPlace: string;
  /** The latest `limit` records (of `job`, or of every job), oldest first. */
  readRuns(job: string | undefined, limit: number): Promise<RunRecord[]>;
  /** The paused jobs, by name. */
  readPauses(): Promise<Record<string, JobPause>>;
  /** Records `job` as paused, or resumed (undefined). */
  setPause(job: string, pause: JobPause | undefined): Promise<void>;
}

/** Why and since when (an ISO time) a job is paused. */
export type JobPause = { since: string; reason: string };

/** The pause a run's record stores for its job: one when its status is `paused`, or when it was the final run that ended the job. */
export function pauseOf(record: RunRecord): JobPause | undefined {
  const reasons = [record.ended, record.status === "paused" ? (record.detail ?? "paused") : undefined].filter((reason) => reason !== undefined);
  return reasons.length === 0 ? undefined : { since: record.end, reason: reasons.join("; ") };
}

/** The files store: RUNS_FILE and CRON_STATE_FILE of `workspace`. */
export function fileCronStore(workspace: string): CronStore {
  return {
    runsPlace: join(workspace, RUNS_FILE),
    readRuns: async (job, limit) => (await readRunRecords(workspace)).filter((record) => job === undefined || record.job === job).slice(-limit),
    readPauses: () => readPausedJobs(workspace),
    setPause: (job, pause) => setJobPause(workspace, job, pause),
  };
}

/** Appends one record to `<workspace>/cron/runs.jsonl`, creating the folder. A single small append, so lines never interleave. */
export async function appendRunRecord(workspace: string, record: RunRecord): Promise<void> {
  const file = join(workspace, RUNS_FILE);
  await mkdir(join(file, ".."), { recursive: true });
  await appendFile(file, `${JSON.stringify(record)}\n`, "utf8");
}

/**
 * The records of runs.jsonl, oldest first; none when no run was recorded. A line that is not a record (a torn append, a hand
 * edit) is skipped: the history is for reading, not for deciding.
 */
export async function readRunRecords(workspace: string): Promise<RunRecord[]> {
  const text = await readRegularText(join(workspace, RUNS_FILE)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  return text.split("\n").flatMap((line) => {
    const record = parsed(line) as Partial<RunRecord> | null | undefined;
    return record && typeof record.job === "string" && typeof record.start === "string" && typeof record.end === "string" ? [record as RunRecord] : [];
  });
}

const stateSchema = z.object({ paused: z.record(z.string(), z.object({ since: z.string(), reason: z.string() })) });

/** The paused jobs of `workspace`, by name; none when the file does not exist. Throws ConfigError when it cannot be read or was edited into something else. */
export async function readPausedJobs(workspace: string): Promise<Record<string, JobPause>> {
  const file = join(workspace, CRON_STATE_FILE);
  const raw = await readConfigText(file, { optional: true });
  if (raw === undefined) return {};
  const state = stateSchema.safeParse(parsed(raw));
  if (!state.success) throw new ConfigError(`${file}: not a cron state ({"paused": {JOB: {"since", "reason"}}}); delete it to resume every job`);
  return state.data.paused;
}

/**
 * Records `job` as paused (`pause`) or resumed (undefined). Read, change and atomic replace happen under the file's lock: the
 * scheduler and a `cron run` in another process may both write, and neither may lose the other's change.
 */
export async function setJobPause(workspace: string, job: string, pause: JobPause | undefined): Promise<void> {
  const file = join(workspace, CRON_STATE_FILE);
  const makeError = (message: string, cause?: unknown): Error => new ConfigError(message, { cause });
  await withFileLock(`${file}.lock`, { timeoutMs: 5_000, clock: systemClock, label: "cron state", subject: file, makeError }, async () => {
    const paused = await readPausedJobs(workspace);
    if (pause) paused[job] = pause;
    else if (job in paused) delete paused[job];
    else return;
    await writeFileAtomic(file, `${JSON.stringify({ paused }, null, 2)}\n`);
  });
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
