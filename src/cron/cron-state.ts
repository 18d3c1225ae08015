// Which cron jobs are paused, and why: <workspace>/cron/state.json, written atomically under a lock, so a pause outlives the process.
import { join } from "node:path";
import * as z from "zod";
import { systemClock } from "../deps.js";
import { ConfigError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { withFileLock } from "../fs/file-lock.js";
import { readRegularText } from "../fs/regular-file.js";

/** The state file, inside the workspace (beside runs.jsonl). */
export const CRON_STATE_FILE = join("cron", "state.json");
const LOCK_TIMEOUT_MS = 5_000;

/** Why and since when a job is paused (an ISO time). */
export interface JobPause {
  since: string;
  reason: string;
}

const stateSchema = z.object({ paused: z.record(z.string(), z.object({ since: z.string(), reason: z.string() })) });

/**
 * The paused jobs of `workspace`, by name; none when the file does not exist. Throws
 * ConfigError when it cannot be read or was edited into something else.
 */
export async function readPausedJobs(workspace: string): Promise<Record<string, JobPause>> {
  const file = join(workspace, CRON_STATE_FILE);
  const raw = await readRegularText(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw new ConfigError(`${file}: cannot be read: ${error.message}`);
  });
  if (raw === undefined) return {};
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    data = undefined;
  }
  const parsed = stateSchema.safeParse(data);
  if (!parsed.success) throw new ConfigError(`${file}: not a cron state ({"paused": {JOB: {"since", "reason"}}}); delete it to resume every job`);
  return parsed.data.paused;
}

/**
 * Records `job` as paused (`pause`) or resumed (undefined). Read, change and atomic
 * replace happen under the file's lock: the scheduler and a `cron run` in another
 * process may both write, and neither may lose the other's change.
 */
export async function setJobPause(workspace: string, job: string, pause: JobPause | undefined): Promise<void> {
  const file = join(workspace, CRON_STATE_FILE);
  const lock = {
    timeoutMs: LOCK_TIMEOUT_MS,
    clock: systemClock,
    label: "cron state",
    subject: file,
    makeError: (message: string, cause?: unknown) => new ConfigError(message, { cause }),
  };
  await withFileLock(`${file}.lock`, lock, async () => {
    const paused = await readPausedJobs(workspace);
    if (pause) paused[job] = pause;
    else if (job in paused) delete paused[job];
    else return;
    await writeFileAtomic(file, `${JSON.stringify({ paused }, null, 2)}\n`);
  });
}
