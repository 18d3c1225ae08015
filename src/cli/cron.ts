// `miniclaw cron`: the scheduler until SIGINT/SIGTERM, `cron run JOB` (one run now) and `cron list` (jobs and next runs).
import { join } from "node:path";
import { systemClock } from "../deps.js";
import { ConfigError } from "../errors.js";
import type { McpHub } from "../mcp/hub.js";
import { loadAgents } from "../runtime/agents.js";
import { openSessionBackend } from "./session-backend.js";
import type { SessionBackend } from "../sessions/store.js";
import { nextRunTime, startScheduler, type Scheduler } from "../cron/cron.js";
import { openCronBackend, type CronBackend } from "../cron/cron-backend.js";
import { CRON_FILE, hasEnded, loadCronJobs, type CronJob } from "../cron/cron-config.js";
import { createJobRunner } from "../cron/cron-job.js";
import { startQueuedScheduler } from "../postgres/database-scheduler.js";
import { RunLocks } from "../postgres/cron-run-lock.js";
import type { JobPause } from "../cron/cron-state.js";
import type { CronStore } from "../cron/cron-store.js";
import type { AgentConfig } from "../types.js";
import { executeRun, formatRunLine, formatTime, type RunJob, type RunRecord } from "../cron/cron-runs.js";
import { ensureWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import { turnFlags, type CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { describeEvent } from "./render.js";
import { openWorkspace } from "./setup.js";
import { visibleText } from "./visible-text.js";

/** How long running jobs may go on after SIGINT/SIGTERM before they are aborted (a second signal aborts at once). */
export const CRON_STOP_GRACE_MS = 10_000;
const USAGE_LINE = "usage: miniclaw cron | miniclaw cron run JOB [--force] | miniclaw cron list | miniclaw cron runs [JOB]";
/** How many of the latest runs `cron runs` prints. */
const RUNS_SHOWN = 20;
/** Statuses after which `cron run` exits 0. */
const SUCCESS = new Set(["ok", "alert", "skipped"]);

/** Dispatches `cron`, `cron run JOB`, `cron list` and `cron runs`; resolves to the exit code. Throws ConfigError for a person to fix. */
export async function cronCommand(args: CliArgs, io: CliIo): Promise<number> {
  const [sub, ...rest] = args.words;
  if (sub === undefined) return withPrepared(args, io, (prepared) => runScheduler(prepared, io));
  if (sub === "run" && rest.length === 1) return withPrepared(args, io, (prepared) => runOneJob(prepared, io, rest[0]!, args.force));
  if (sub === "list" && rest.length === 0) return withBackend(args, io, true, (workspace, backend) => listJobs(args, io, workspace, backend));
  if (sub === "runs" && rest.length <= 1) return withBackend(args, io, false, (_workspace, backend) => listRuns(io, backend.store, rest[0]));
  throw new ConfigError(USAGE_LINE);
}

/** What the scheduler and `cron run` share: the jobs, the runner, and the MCP servers of the process. */
interface Prepared {
  workspace: string;
  jobs: CronJob[];
  runJob: RunJob;
  /** The servers of mcp.json, connected by the first run that needs them and shared by every run after it. */
  mcp: McpHub | undefined;
  /** Files, or PostgreSQL when a database is configured. */
  backend: CronBackend;
  /** The sessions every run shares. */
  store: SessionBackend;
}

/** Runs a command over the prepared jobs, then stops the MCP servers and closes the database, however the command ended. */
async function withPrepared(args: CliArgs, io: CliIo, command: (prepared: Prepared) => Promise<number>): Promise<number> {
  const prepared = await prepare(args, io);
  try {
    return await command(prepared);
  } finally {
    await prepared.mcp?.close();
    await prepared.store.close();
    await prepared.backend.close();
  }
}

/** `cron list` and `cron runs`: the workspace (created if missing, when `ensure`) and its cron backend, closed after. */
async function withBackend(args: CliArgs, io: CliIo, ensure: boolean, command: (workspace: string, backend: CronBackend) => Promise<number>): Promise<number> {
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (ensure && (await ensureWorkspace(workspace))) io.stderr.write(`Created a new workspace at ${workspace} from the templates.\n`);
  const backend = await openCronBackend(workspace, args.databaseUrl, io.env);
  try {
    return await command(workspace, backend);
  } finally {
    await backend.close();
  }
}

async function runScheduler({ workspace, runJob, jobs, backend }: Prepared, io: CliIo): Promise<number> {
  const { store, database } = backend;
  const active = await schedulableJobs(workspace, jobs, store, io, database !== undefined);
  const log = (line: string): void => void io.stderr.write(`${visibleText(line, { keepLineBreaks: true })}\n`);
  // With a database every worker ticks every job, paused or not: a pause lifted on any host applies at the next tick.
  const scheduler: Scheduler = database
    ? await startQueuedScheduler(database, { jobs: active, runJob, log, onRecord: (record) => printRun(record, io) })
    : startScheduler({ jobs: active, runJob, log, onRecord: (record) => recordRun(store, record, io) });
  for (const job of active) io.stderr.write(`cron: ${job.name} scheduled, next run ${describeNext(job)}\n`);
  io.stderr.write("cron: running; Ctrl-C to stop\n");
  let signalled = 0;
  let wake = (): void => {};
  const stopped = new Promise<void>((resolve) => (wake = resolve));
  const onSignal = (): void => {
    signalled += 1;
    if (signalled === 1) io.stderr.write("cron: stopping (a second Ctrl-C aborts running jobs)\n");
    wake();
    if (signalled > 1) void scheduler.stop(0);
  };
  const offs = [io.onSignal("SIGINT", onSignal), io.onSignal("SIGTERM", onSignal)];
  try {
    await stopped;
    await scheduler.stop(CRON_STOP_GRACE_MS);
    io.stderr.write("cron: stopped\n");
    return 0;
  } finally {
    for (const off of offs) off();
  }
}

/**
 * The jobs the scheduler takes: enabled and not paused (a stored pause outlives a restart;
 * each one left out gets a line). Throws ConfigError when that leaves none. On a database
 * (`shared`) paused jobs are taken too, and skipped at each tick while the pause lasts.
 */
async function schedulableJobs(workspace: string, jobs: readonly CronJob[], store: CronStore, io: CliIo, shared: boolean): Promise<CronJob[]> {
  const enabled = jobs.filter((job) => job.enabled);
  if (enabled.length === 0) {
    throw new ConfigError(`no enabled job in ${join(workspace, CRON_FILE)}: set "enabled": true on a job (see miniclaw cron list)`);
  }
  const paused = await store.readPauses();
  if (shared) {
    for (const job of enabled) {
      const pause = paused[job.name];
      if (pause) io.stderr.write(`${visibleText(`cron: ${job.name} ${describePause(pause)}; its ticks do nothing until miniclaw cron run ${job.name} --force resumes it`)}\n`);
    }
    return enabled;
  }
  const active = enabled.filter((job) => !paused[job.name]);
  if (active.length === 0) {
    const names = enabled.map((job) => job.name).join(", ");
    throw new ConfigError(`every enabled job is paused (${names}): miniclaw cron list says why; miniclaw cron run JOB --force runs one and, when it succeeds, resumes it`);
  }
  for (const job of enabled) {
    const pause = paused[job.name];
    if (pause) io.stderr.write(`${visibleText(`cron: ${job.name} ${describePause(pause)}; not scheduled (miniclaw cron run ${job.name} --force runs it)`)}\n`);
  }
  return active;
}

async function runOneJob({ workspace, runJob, jobs, backend }: Prepared, io: CliIo, name: string, force: boolean): Promise<number> {
  const { store, database } = backend;
  const job = jobs.find((j) => j.name === name);
  if (!job) {
    const names = jobs.map((j) => j.name).join(", ") || "none";
    throw new ConfigError(`no job "${name}" in ${join(workspace, CRON_FILE)} (jobs: ${names})`);
  }
  const pause = (await store.readPauses())[name];
  if (pause && !force) {
    io.stderr.write(`${visibleText(`${name} ${describePause(pause)}: miniclaw cron run ${name} --force runs it anyway`)}\n`);
    return 1;
  }
  const controller = new AbortController();
  // SIGTERM too: the run ends as interrupted and the MCP servers are stopped rather than left to the reaper.
  const offs = [io.onSignal("SIGINT", () => controller.abort()), io.onSignal("SIGTERM", () => controller.abort())];
  try {
    const run = (signal: AbortSignal): Promise<RunRecord> => executeRun(job, runJob, { clock: systemClock, signal });
    const record = database ? await runLocked(database, name, (lost) => run(AbortSignal.any([controller.signal, lost])), io) : await run(controller.signal);
    if (!record) {
      io.stderr.write(`${visibleText(`${name} is running on a worker now; try again when that run ends (miniclaw cron runs ${name})`)}\n`);
      return 1;
    }
    await recordRun(store, record, io);
    if (pause && (record.status === "ok" || record.status === "alert")) {
      await store.setPause(name, undefined);
      io.stderr.write(`cron: ${visibleText(name)} is resumed: the scheduler runs it again from its next start\n`);
    }
    // A final run that went well ends its job (stored as a pause): it succeeded all the same.
    const finished = record.status === "paused" && job.until !== undefined && hasEnded(job, Date.parse(record.start)) && !/budget/.test(record.detail ?? "");
    return SUCCESS.has(record.status) || finished ? 0 : 1;
  } finally {
    for (const off of offs) off();
  }
}

/**
 * Runs `run` holding the job's run lock, as the workers' runs do: never two runs of a job at once, and
 * a tick that comes meanwhile is skipped (the workers see the lock held). `run` gets the lock's lost
 * signal: a lock lost mid-run aborts the run. Undefined when the lock is held elsewhere.
 */
async function runLocked(database: NonNullable<CronBackend["database"]>, name: string, run: (lost: AbortSignal) => Promise<RunRecord>, io: CliIo): Promise<RunRecord | undefined> {
  const locks = new RunLocks(database, (line) => void io.stderr.write(`${line}\n`));
  try {
    const lock = await locks.tryLock(name);
    if (!lock) return undefined;
    try {
      return await run(lock.lost);
    } finally {
      await lock.release();
    }
  } finally {
    await locks.close();
  }
}

/**
 * The jobs, one row each (paused ones with a line saying why), after checking their agents exist.
 * On a database each job also gets a line with its last result from cron_runs.
 */
async function listJobs(args: CliArgs, io: CliIo, workspace: string, { store, database }: CronBackend): Promise<number> {
  const jobs = await loadCronJobs(workspace);
  checkJobAgents(workspace, jobs, await loadAgents(workspace, { onWarning: warner(io) }), args.agent);
  if (jobs.length === 0) {
    io.stdout.write(`No jobs in ${join(workspace, CRON_FILE)}.\n`);
    return 0;
  }
  const paused = await store.readPauses();
  const last = database ? await lastRuns(store, jobs) : undefined;
  const state = (job: CronJob): string => (!job.enabled ? "disabled" : paused[job.name] ? "paused" : "enabled");
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
    const lastRun = last?.get(job.name);
    if (last) io.stdout.write(`  last: ${lastRun ? visibleText(formatRunLine(lastRun)) : "never run"}\n`);
    if (state(job) !== "paused") return;
    const ended = job.until !== undefined && /ended at its until/.test(paused[job.name]!.reason);
    const how = ended ? "runs its final wake-up once more; the job stays ended" : "runs it and, when it succeeds, resumes it";
    io.stdout.write(`  ${visibleText(describePause(paused[job.name]!))}; miniclaw cron run ${visibleText(job.name)} --force ${how}\n`);
  });
  return 0;
}

/** The latest runs (of `job`, or of every job), one line each as the scheduler printed them; needs no credentials. */
async function listRuns(io: CliIo, store: CronStore, job: string | undefined): Promise<number> {
  const records = await store.readRuns(job, RUNS_SHOWN);
  if (records.length === 0) {
    io.stdout.write(`No runs${job === undefined ? "" : ` of ${visibleText(job)}`} in ${store.runsPlace}.\n`);
    return 0;
  }
  for (const record of records) io.stdout.write(`${visibleText(formatRunLine(record))}\n`);
  return 0;
}

/** The last record of each job that has one. */
async function lastRuns(store: CronStore, jobs: readonly CronJob[]): Promise<Map<string, RunRecord>> {
  const found = await Promise.all(jobs.map(async (job) => [job.name, (await store.readRuns(job.name, 1))[0]] as const));
  return new Map(found.flatMap(([name, record]) => (record ? [[name, record] as const] : [])));
}

/** `is paused since <time> (<reason>)`; the reason can quote the API, so callers print it through visibleText. */
function describePause(pause: JobPause): string {
  const since = Date.parse(pause.since);
  return `is paused since ${Number.isNaN(since) ? pause.since : formatTime(since)} (${pause.reason.replace(/\s+/g, " ").trim()})`;
}

/** Throws ConfigError naming the job and the file when a job's agent (or `--agent`) is not in the workspace. */
function checkJobAgents(workspace: string, jobs: readonly CronJob[], agents: Record<string, AgentConfig>, defaultAgent: string | undefined): void {
  for (const job of jobs) {
    const agent = job.agent ?? defaultAgent;
    if (agent !== undefined && !agents[agent]) {
      throw new ConfigError(`${join(workspace, CRON_FILE)}: job "${job.name}": agent: no agent "${agent}" (available: ${Object.keys(agents).join(", ")})`);
    }
  }
}

function warner(io: CliIo): (message: string) => void {
  return (message) => void io.stderr.write(`warning: ${visibleText(message, { keepLineBreaks: true })}\n`);
}

/**
 * Credentials first (as `run`), then the jobs, their agents, mcp.json, and the runner every run goes
 * through. Each run opens its own assistant (edited SOUL.md files apply), but the MCP servers are the
 * process's: started once, by the first run that needs them.
 */
async function prepare(args: CliArgs, io: CliIo): Promise<Prepared> {
  const { workspace, client } = await openWorkspace(args, io);
  const jobs = await loadCronJobs(workspace);
  const warn = warner(io);
  checkJobAgents(workspace, jobs, await loadAgents(workspace, { onWarning: warn }), args.agent);
  const mcp = await (await import("../mcp/index.js")).openMcpHub(workspace, io.env, warn);
  const store = await openSessionBackend({ sessionsDir: join(workspace, "sessions"), database: args.databaseUrl, env: io.env, onWarning: warn });
  const runJob = createJobRunner({
    assistant: {
      workspace,
      cwd: io.cwd,
      env: io.env,
      client,
      onWarning: warn,
      store,
      toolSources: mcp ? [mcp] : [],
      turn: turnFlags(args),
      ...(args.model !== undefined && { model: args.model }),
      ...(args.permissionMode !== undefined && { permissionMode: args.permissionMode }),
    },
    onEvent: (job, event) => {
      const line = event.type === "turn_end" ? undefined : describeEvent(event, (_style, text) => text);
      if (line !== undefined) io.stderr.write(`  ${job.name} ${line.trimStart()}\n`);
    },
  });
  const withDefaultAgent: RunJob = (job, signal) => runJob(args.agent !== undefined && job.agent === undefined ? { ...job, agent: args.agent } : job, signal);
  const backend = await openCronBackend(workspace, args.databaseUrl, io.env).catch(async (error: unknown) => {
    await mcp?.close();
    await store.close();
    throw error;
  });
  return { workspace, jobs, runJob: withDefaultAgent, mcp, backend, store };
}

/**
 * Appends the run to the run log and prints its line on stdout (even when the append fails,
 * which is reported); a paused run is stored as the job's pause, so it outlives this process.
 */
async function recordRun(store: CronStore, record: RunRecord, io: CliIo): Promise<void> {
  const attempt = async (what: string, write: () => Promise<void>): Promise<void> => {
    try {
      await write();
    } catch (error) {
      io.stderr.write(`cron: could not ${what}: ${visibleText(error instanceof Error ? error.message : String(error))}\n`);
    }
  };
  await attempt(`append to ${store.runsName}`, () => store.appendRun(record));
  if (record.status === "paused") {
    await attempt("store the pause", () => store.setPause(record.job, { since: record.end, reason: record.detail ?? "paused" }));
  }
  printRun(record, io);
}

/** The run's one line on stdout; it quotes the model's reply: escaped, as everything from the model on a terminal. */
function printRun(record: RunRecord, io: CliIo): void {
  io.stdout.write(`${visibleText(formatRunLine(record))}\n`);
}

function describeNext(job: CronJob): string {
  const next = nextRunTime(job.schedule, job.tz, new Date());
  return next ? `${formatTime(next, job.tz)}${job.tz ? ` ${job.tz}` : ""}` : "never";
}
