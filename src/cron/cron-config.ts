// workspace/cron.json: the job schema (zod), its defaults, and one-line errors naming the file, the job and the field.
import { join, resolve } from "node:path";
import * as z from "zod";
import { ConfigError } from "../errors.js";
import type { JsonSchema } from "../types.js";
import { readOutputSchema } from "../loop/output.js";
import { checkSchedule } from "./cron.js";
import type { ActiveHours } from "./heartbeat.js";
import { checkConfig, parseJsonConfig, readConfigText } from "../fs/config-file.js";

/** The jobs file, inside the workspace. */
export const CRON_FILE = "cron.json";

/** One job of cron.json, defaults applied. */
export interface CronJob {
  /** Unique; letters, digits, `-`, `_`, `.`. */
  name: string;
  /** Cron syntax, 5 fields or 6 with seconds first; checked at load. */
  schedule: string;
  /** IANA time zone of the schedule and of `activeHours`; default the machine's. */
  tz?: string;
  /** The agent that answers; default the main agent. */
  agent?: string;
  /** Session key; default `cron:<name>`. */
  session: string;
  /** The message sent; for a heartbeat job, extra instructions after the checklist's. */
  prompt?: string;
  /** Work through HEARTBEAT.md; a HEARTBEAT_OK reply means nothing needs attention. */
  heartbeat: boolean;
  enabled: boolean;
  /** Outside this window the job is skipped (meant to keep heartbeats quiet at night). */
  activeHours?: ActiveHours;
  /** Stops a run once its estimated cost passes this many dollars; the job is then paused. */
  maxBudgetUsd?: number;
  /** A JSON Schema file, relative to the workspace: the run's answer is an object checked against it, stored in its record. */
  outputSchema?: string;
  /** The schema of `outputSchema`, read by `loadCronJobs`. */
  output?: JsonSchema;
  /** An ISO date-time with its offset. The first run at or after it is the final one (`hasEnded`): it sends `finalPrompt`, then the job is paused for good. */
  until?: string;
  /** The message of the final run; default DEFAULT_FINAL_PROMPT. Only with `until`. */
  finalPrompt?: string;
}

/** The message of a job's final run when cron.json gives no `finalPrompt`. */
export const DEFAULT_FINAL_PROMPT =
  "This is the last scheduled run of this job: its end time has passed and it will not run again. Freeze your results: save the final version of what you have kept, marked as final, and reply with a short summary of it.";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const CLOCK_TIME = /^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/;
// An offset is required: without one, the same cron.json would end at different moments on different machines.
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:\d\d)$/;

const text = (what: string) =>
  z.string({ error: (issue) => (issue.input === undefined ? `is required: ${what}` : `must be text: ${what}`) }).trim().min(1, `must not be empty: ${what}`);
const time = z.string({ error: 'must be a time such as "08:00"' }).regex(CLOCK_TIME, 'must be a time such as "08:00" (24-hour HH:MM)');

const jobSchema = z.strictObject({
  name: text("the job's name").regex(NAME, 'may hold only letters, digits, "-", "_" and "."'),
  schedule: text('a cron expression such as "30 7 * * *"'),
  tz: text('an IANA time zone such as "Europe/Paris"').refine(isTimeZone, 'is not a known time zone (use an IANA name such as "Europe/Paris")').optional(),
  agent: text("an agent id such as main").optional(),
  session: text("a session key").optional(),
  prompt: text("the message sent to the agent").optional(),
  heartbeat: z.boolean({ error: "must be true or false" }).optional(),
  enabled: z.boolean({ error: "must be true or false" }).optional(),
  activeHours: z
    .strictObject({ start: time, end: time }, { error: 'must be an object such as {"start": "08:00", "end": "22:00"}' })
    .refine((h) => h.start !== h.end, "start and end must differ")
    .optional(),
  maxBudgetUsd: z.number({ error: "must be a number of dollars" }).positive("must be greater than 0").optional(),
  outputSchema: text("a JSON Schema file, relative to the workspace").optional(),
  until: text('an ISO date-time such as "2026-06-14T18:00:00+02:00"')
    .refine((value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)), 'must be an ISO date-time with its offset, such as "2026-06-14T18:00:00+02:00" or "2026-06-14T16:00:00Z"')
    .optional(),
  finalPrompt: text("the message of the final run").optional(),
});

const fileSchema = z.strictObject({ jobs: z.array(z.unknown(), { error: 'must be a list of jobs: {"jobs": [...]}' }) }, { error: 'must be an object such as {"jobs": [...]}' });

/**
 * Reads and checks `<workspace>/cron.json` and the output schema files its jobs name (schedules parsed in their time zones,
 * names unique). Throws ConfigError with one line naming the file, the job and the field.
 */
export async function loadCronJobs(workspace: string): Promise<CronJob[]> {
  const file = join(workspace, CRON_FILE);
  const raw = (await readConfigText(file, { hint: 'create it with {"jobs": [...]} (see the example shipped with miniclaw)' }))!;
  const jobs = parseCronJobs(raw, file);
  return Promise.all(
    jobs.map(async (job) => {
      if (job.outputSchema === undefined) return job;
      const schemaFile = resolve(workspace, job.outputSchema);
      return { ...job, output: await readOutputSchema(schemaFile, `${file}: job "${job.name}": outputSchema: ${schemaFile}`) };
    }),
  );
}

/** Parses the text of a cron.json (`file` names it in errors). Throws ConfigError as `loadCronJobs` does. */
export function parseCronJobs(raw: string, file: string): CronJob[] {
  const top = checkConfig(fileSchema, parseJsonConfig(raw, file), file);
  const jobs = top.jobs.map((entry, index) => parseJob(entry, index, file));
  const twice = jobs.find((job, index) => jobs.findIndex((other) => other.name === job.name) !== index);
  if (twice) throw new ConfigError(`${file}: job "${twice.name}": name: is used by another job; names must be unique`);
  return jobs;
}

function parseJob(entry: unknown, index: number, file: string): CronJob {
  const rawName = (entry as { name?: unknown } | null)?.name;
  const where = `${file}: ${typeof rawName === "string" && rawName.trim() ? `job "${rawName.trim()}"` : `jobs[${index}]`}`;
  const fail = (message: string): never => {
    throw new ConfigError(`${where}: ${message}`);
  };
  const job = checkConfig(jobSchema, entry, where);
  const problem = checkSchedule(job.schedule, job.tz);
  if (problem) fail(`schedule: "${job.schedule}" ${problem}`);
  if (job.prompt === undefined && job.heartbeat !== true) fail('needs a "prompt", or "heartbeat": true to work through HEARTBEAT.md');
  if (job.outputSchema !== undefined && job.heartbeat === true) fail("outputSchema: does not go with a heartbeat, whose answer is HEARTBEAT_OK or an alert");
  if (job.finalPrompt !== undefined && job.until === undefined) fail('finalPrompt: is sent by the final run, after "until": set "until" too');
  // zod leaves out the optional fields the file leaves out, as CronJob wants them.
  return { ...job, session: job.session ?? `cron:${job.name}`, heartbeat: job.heartbeat ?? false, enabled: job.enabled ?? true } as CronJob;
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** True when a run of `job` at `at` (epoch ms) is at or after its `until`: the final run, after which the job is paused for good. False without `until`. */
export function hasEnded(job: CronJob, at: number): boolean {
  return job.until !== undefined && at >= Date.parse(job.until);
}
