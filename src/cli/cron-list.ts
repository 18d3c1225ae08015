// `miniclaw cron list` and `miniclaw cron runs [JOB]`: the jobs with their next run and state, the latest runs; and the lines both print.
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import { CRON_FILE, formatRunLine, formatTime, loadCronJobs, nextRunTime, type CronJob, type CronStore, type JobPause, type RunRecord } from "../cron/index.js";
import { loadAgents } from "../runtime/agents.js";
import type { AgentConfig } from "../types.js";
import type { CliIo } from "./io.js";
import { visibleText } from "./visible-text.js";

const RUNS_SHOWN = 20;

/** The jobs, one row each (paused ones with a line saying why), after checking their agents exist. With a shared store (a database) each job also gets a line with its last result. */
export async function listJobs(io: CliIo, workspace: string, store: CronStore, shared: boolean, defaultAgent: string | undefined): Promise<number> {
  const jobs = await loadCronJobs(workspace);
  checkJobAgents(workspace, jobs, await loadAgents(workspace, { onWarning: warner(io) }), defaultAgent);
  if (jobs.length === 0) {
    io.stdout.write(`No jobs in ${join(workspace, CRON_FILE)}.\n`);
    return 0;
  }
  const paused = await store.readPauses();
  const last = shared ? await Promise.all(jobs.map(async (job) => (await store.readRuns(job.name, 1))[0])) : undefined;
  const ended = (job: CronJob): boolean => paused[job.name]?.reason.startsWith("ended at its until") === true;
  const state = (job: CronJob): string => (!job.enabled ? "disabled" : ended(job) ? "ended" : paused[job.name] ? "paused" : "enabled");
  const rows = jobs.map((job) => [
    job.name,
    state(job),
    state(job) === "enabled" ? `next ${describeNext(job)}` : "-",
    `${job.schedule}${job.tz ? ` (${job.tz})` : ""}${job.heartbeat ? "  heartbeat" : ""}${job.activeHours ? ` ${job.activeHours.start}–${job.activeHours.end}` : ""}${job.outputSchema ? `  output ${job.outputSchema}` : ""}`,
  ]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  rows.forEach((row, index) => {
    io.stdout.write(`${visibleText(row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join("  "))}\n`);
    const job = jobs[index]!;
    const lastRun = last?.[index];
    if (last) io.stdout.write(`  last: ${lastRun ? visibleText(formatRunLine(lastRun, undefined, { worker: true })) : "never run"}\n`);
    const pause = paused[job.name];
    if (!job.enabled || pause === undefined) return;
    const how = ended(job) ? "runs its final wake-up once more; the job stays ended" : "runs it and, when it succeeds, resumes it";
    io.stdout.write(`  ${visibleText(describePause(pause))}; miniclaw cron run ${visibleText(job.name)} --force ${how}\n`);
  });
  return 0;
}

/** The latest runs (of `job`, or of every job), one line each as the scheduler printed them; needs no credentials. */
export async function listRuns(io: CliIo, store: CronStore, job: string | undefined): Promise<number> {
  const records = await store.readRuns(job, RUNS_SHOWN);
  const lines = records.map((record) => `${visibleText(formatRunLine(record, undefined, { worker: true }))}\n`);
  io.stdout.write(records.length > 0 ? lines.join("") : `No runs${job === undefined ? "" : ` of ${visibleText(job)}`} in ${store.runsPlace}.\n`);
  return 0;
}

/** `is paused since <time> (<reason>)`, or `has ended since ...` for a job past its until; the reason can quote the API, so callers print it through visibleText. */
export function describePause(pause: JobPause): string {
  const since = Date.parse(pause.since);
  const what = pause.reason.startsWith("ended at its until") ? "has ended" : "is paused";
  return `${what} since ${Number.isNaN(since) ? pause.since : formatTime(since)} (${pause.reason.replace(/\s+/g, " ").trim()})`;
}

/** Throws ConfigError naming the job and the file when a job's agent (or `--agent`) is not in the workspace. */
export function checkJobAgents(workspace: string, jobs: readonly CronJob[], agents: Record<string, AgentConfig>, defaultAgent: string | undefined): void {
  for (const job of jobs) {
    const agent = job.agent ?? defaultAgent;
    if (agent !== undefined && !agents[agent]) throw new ConfigError(`${join(workspace, CRON_FILE)}: job "${job.name}": agent: no agent "${agent}" (available: ${Object.keys(agents).join(", ")})`);
  }
}

/** Warnings on stderr, escaped. */
export function warner(io: CliIo): (message: string) => void {
  return (message) => void io.stderr.write(`warning: ${visibleText(message, { keepLineBreaks: true })}\n`);
}

/** The run's one line on stdout; it quotes the model's reply: escaped, as everything from the model on a terminal. */
export function printRun(record: RunRecord, io: CliIo): void {
  io.stdout.write(`${visibleText(formatRunLine(record))}\n`);
}

/** When `job` runs next, in its time zone: `YYYY-MM-DD HH:MM [tz]` (`:SS` too for a schedule with a seconds field), or `never`. */
export function describeNext(job: CronJob): string {
  const next = nextRunTime(job.schedule, job.tz, new Date());
  const seconds = job.schedule.trim().split(/\s+/).length === 6;
  return next ? `${formatTime(next, job.tz, { seconds })}${job.tz ? ` ${job.tz}` : ""}` : "never";
}
