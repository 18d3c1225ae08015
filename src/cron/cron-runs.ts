// One cron run as a record: running a job safely, and the line printed for it.
import { hostname } from "node:os";
import type { Clock } from "../deps.js";
import { messageOf } from "../errors.js";
import type { Usage } from "../types.js";
import type { CronJob } from "./cron-config.js";

/** Characters of a reply or structured answer shown in a run's line; the record keeps all of it. */
const LINE_REPLY_CHARS = 100;

/**
 * How a run ended. `ok`: done, nothing to flag (a heartbeat answered HEARTBEAT_OK); `alert`: a heartbeat found something;
 * `skipped`: no model call (outside active hours, empty checklist, previous run still going); `error`: the run failed, the job
 * goes on; `paused`: it failed on authentication or budget, or ended at its `until`, and is not run again until resumed.
 */
export type RunStatus = "ok" | "alert" | "skipped" | "error" | "paused";

/** What a job callback reports about one run. */
export interface RunOutcome {
  status: RunStatus;
  /** The reply, HEARTBEAT_OK already stripped. */
  reply?: string;
  /** The checked object of a job with an `outputSchema` (then there is no `reply`). */
  output?: unknown;
  usage?: Usage;
  costUsd?: number;
  /** Why it was skipped, failed or paused, in one line. */
  detail?: string;
  /** The job's final run, after its `until`: why the job has ended (it runs no more). */
  ended?: string;
}

/** Runs one job. Should resolve even on failure (a throw is recorded as `error`), and stop soon after `signal` aborts (shutdown). */
export type RunJob = (job: CronJob, signal: AbortSignal) => Promise<RunOutcome>;

/** One line of runs.jsonl: the outcome, its job, when it started and ended (ISO strings), and the worker that ran it (`host pid N`). */
export type RunRecord = RunOutcome & { job: string; start: string; end: string; worker?: string };

/** This process as the worker of its runs. */
const WORKER = `${hostname()} pid ${process.pid}`;

/** Runs `job` once through `runJob` and resolves to its record; never throws. */
export async function executeRun(job: CronJob, runJob: RunJob, opts: { clock: Clock; signal: AbortSignal }): Promise<RunRecord> {
  const start = new Date(opts.clock.now()).toISOString();
  const outcome = await Promise.resolve()
    .then(() => runJob(job, opts.signal))
    .catch((error: unknown): RunOutcome => ({ status: "error", detail: messageOf(error) }));
  return { job: job.name, start, end: new Date(opts.clock.now()).toISOString(), ...outcome, worker: WORKER };
}

/** A record of a run that did not happen (start = end = `at`). */
export function skippedRecord(job: CronJob, at: number, detail: string): RunRecord {
  const time = new Date(at).toISOString();
  return { job: job.name, start: time, end: time, status: "skipped", detail, worker: WORKER };
}

/**
 * The one line printed per run: `[2026-11-29 07:30:00] morning-check ok 2.1s "reply…"`, then `(detail)`, `(final run: …)` and,
 * with `worker`, the worker; start time in `timeZone` (default the machine's). An alert's reply is the point, so it is never cut.
 */
export function formatRunLine(record: RunRecord, timeZone?: string, show: { worker?: boolean } = {}): string {
  const start = Date.parse(record.start);
  const seconds = (Date.parse(record.end) - start) / 1000;
  const parts = [`[${formatTime(start, timeZone, { seconds: true })}]`, record.job, record.status, `${seconds.toFixed(1)}s`];
  const reply = oneLine(record.reply ?? "");
  if (reply) parts.push(`"${record.status === "alert" ? reply : cutAt(reply, LINE_REPLY_CHARS)}"`);
  if (record.output !== undefined) parts.push(cutAt(JSON.stringify(record.output), LINE_REPLY_CHARS));
  if (record.detail) parts.push(`(${oneLine(record.detail)})`);
  if (record.ended) parts.push(`(final run: ${oneLine(record.ended)})`);
  if (show.worker && record.worker) parts.push(`on ${record.worker}`);
  return parts.join(" ");
}

/** `YYYY-MM-DD HH:MM` of `at` in `timeZone` (default the machine's), `:SS` added with `seconds`. */
export function formatTime(at: number | Date, timeZone?: string, show: { seconds?: boolean } = {}): string {
  const second = show.seconds ? ({ second: "2-digit" } as const) : {};
  const options = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", ...second, hourCycle: "h23", ...(timeZone && { timeZone }) } as const;
  const parts = new Intl.DateTimeFormat("en-GB", options).formatToParts(at);
  const part = (type: string): string => parts.find((p) => p.type === type)?.value ?? "??";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}${show.seconds ? `:${part("second")}` : ""}`;
}

function cutAt(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
