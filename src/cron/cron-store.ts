// Where the run log and the pauses live: the CronStore contract, and its files implementation (runs.jsonl, state.json).
import { join } from "node:path";
import { appendRunRecord, readRunRecords, RUNS_FILE, type RunRecord } from "./cron-runs.js";
import { readPausedJobs, setJobPause, type JobPause } from "./cron-state.js";

/**
 * The run log and the pauses of a workspace's jobs, on files or in the database. Every method
 * may throw what its medium throws (ConfigError for a state file edited into something else);
 * callers report it and go on.
 */
export interface CronStore {
  /** Where the run log lives, for messages: `<workspace>/cron/runs.jsonl` or `the cron_runs table of schema S`. */
  readonly runsPlace: string;
  /** Its short name: `runs.jsonl` or `cron_runs`. */
  readonly runsName: string;
  /** Appends one record. */
  appendRun(record: RunRecord): Promise<void>;
  /** The latest `limit` records (of `job`, or of every job), oldest first. */
  readRuns(job: string | undefined, limit: number): Promise<RunRecord[]>;
  /** The paused jobs, by name. */
  readPauses(): Promise<Record<string, JobPause>>;
  /** Records `job` as paused, or resumed (undefined). */
  setPause(job: string, pause: JobPause | undefined): Promise<void>;
}

/** The files store of today: `<workspace>/cron/runs.jsonl` and `<workspace>/cron/state.json`. */
export function fileCronStore(workspace: string): CronStore {
  return {
    runsPlace: join(workspace, RUNS_FILE),
    runsName: "runs.jsonl",
    appendRun: (record) => appendRunRecord(workspace, record),
    async readRuns(job, limit) {
      const records = (await readRunRecords(workspace)).filter((record) => job === undefined || record.job === job);
      return records.slice(-limit);
    },
    readPauses: () => readPausedJobs(workspace),
    setPause: (job, pause) => setJobPause(workspace, job, pause),
  };
}
