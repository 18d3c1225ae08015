// `miniclaw cron`: the scheduler until SIGINT/SIGTERM, `cron run JOB` (one run now), `cron list` and `cron runs` (cron-list.ts).
import { join } from "node:path";
import { systemClock } from "../deps.js";
import type { AgentEvent } from "../types.js";
import { ConfigError } from "../errors.js";
import { loadAgents } from "../runtime/agents.js";
import { CRON_FILE, createJobRunner, executeRun, loadCronJobs, startScheduler, type CronJob, type CronStore, type RunJob } from "../cron/index.js";
import { resolveWorkspace } from "../runtime/workspace.js";
import { turnFlags, type CliArgs } from "./args.js";
import { openPlugins } from "./assistant-setup.js";
import { closing, openCron, type OpenedCron } from "./backends.js";
import { checkJobAgents, describeNext, describePause, listJobs, listRuns, printRun, warner } from "./cron-list.js";
import { stopOnSignals, type CliIo } from "./io.js";
import { describeEvent } from "./render.js";
import { openWorkspace, readyWorkspace } from "./setup.js";
import { visibleText } from "./visible-text.js";
import type { SessionBackend } from "../sessions/backend.js";
import type { TurnHooks } from "../loop/turn-options.js";
import type { CassetteRecorder } from "../testing/record.js";

/** How long running jobs may go on after SIGINT/SIGTERM before they are aborted (a second signal aborts at once). */
const CRON_STOP_GRACE_MS = 10_000;
const USAGE_LINE = "usage: miniclaw cron | miniclaw cron run JOB [--force] | miniclaw cron list | miniclaw cron runs [JOB]";
/** Statuses after which `cron run` exits 0. */
const SUCCESS = new Set(["ok", "alert", "skipped"]);

/** Dispatches `cron`, `cron run JOB`, `cron list` and `cron runs`; resolves to the exit code. Throws ConfigError for a person to fix. */
export async function cronCommand(args: CliArgs, io: CliIo): Promise<number> {
  const [sub, ...rest] = args.words;
  if (sub === undefined) return closing(await prepare(args, io), (prepared) => runScheduler(prepared, io));
  if (sub === "run" && rest.length === 1) return closing(await prepare(args, io), (prepared) => runOneJob(prepared, io, rest[0]!, args.force));
  if (sub === "list" && rest.length === 0) return closing(await openListing(args, io, true), ({ workspace, cron, shared }) => listJobs(io, workspace, cron.store, shared, args.agent));
  if (sub === "runs" && rest.length <= 1) return closing(await openListing(args, io, false), ({ cron }) => listRuns(io, cron.store, rest[0]));
  throw new ConfigError(USAGE_LINE);
}

/** What the scheduler and `cron run` share: jobs, runner, where runs are kept (`backend`: files or PostgreSQL; its sessions are the runs'); `close` stops the MCP servers, closes the backend. */
type Prepared = { workspace: string; jobs: CronJob[]; runJob: RunJob; backend: OpenedCron; close(): Promise<void> };

/** `cron list` and `cron runs`: the workspace (created if missing, when `ensure`) and its cron backend. */
async function openListing(args: CliArgs, io: CliIo, ensure: boolean): Promise<OpenedCron & { workspace: string }> {
  const workspace = ensure ? await readyWorkspace(args, io) : resolveWorkspace(io.cwd, args.workspace, io.env);
  return { ...(await openCron(args, io, workspace)), workspace };
}

async function runScheduler({ workspace, runJob, jobs, backend }: Prepared, io: CliIo): Promise<number> {
  const active = await schedulableJobs(workspace, jobs, backend.cron.store, io, backend.shared);
  const log = (line: string): void => void io.stderr.write(`${visibleText(line, { keepLineBreaks: true })}\n`);
  const claims = await backend.cron.openClaims(active, { log });
  const scheduler = startScheduler({ jobs: active, runJob, claims, log, onRecord: (record) => printRun(record, io) });
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

/** The enabled jobs: on files a paused one is left out (a pause outlives a restart; each gets a line; none left: ConfigError); on a database it is taken, and skipped at each tick while paused. */
async function schedulableJobs(workspace: string, jobs: readonly CronJob[], store: CronStore, io: CliIo, shared: boolean): Promise<CronJob[]> {
  const enabled = jobs.filter((job) => job.enabled);
  if (enabled.length === 0) throw new ConfigError(`no enabled job in ${join(workspace, CRON_FILE)}: set "enabled": true on a job (see miniclaw cron list)`);
  const paused = await store.readPauses();
  const active = shared ? enabled : enabled.filter((job) => !paused[job.name]);
  if (active.length === 0) {
    const names = enabled.map((job) => job.name).join(", ");
    throw new ConfigError(`every enabled job is paused (${names}): miniclaw cron list says why; miniclaw cron run JOB --force runs one and, when it succeeds, resumes it`);
  }
  const what = shared ? (name: string) => `its ticks do nothing until miniclaw cron run ${name} --force resumes it` : (name: string) => `not scheduled (miniclaw cron run ${name} --force runs it)`;
  for (const job of enabled) {
    const pause = paused[job.name];
    if (pause) io.stderr.write(`${visibleText(`cron: ${job.name} ${describePause(pause)}; ${what(job.name)}`)}\n`);
  }
  return active;
}

async function runOneJob({ workspace, runJob, jobs, backend }: Prepared, io: CliIo, name: string, force: boolean): Promise<number> {
  const { store } = backend.cron;
  const job = jobs.find((j) => j.name === name);
  if (!job) throw new ConfigError(`no job "${name}" in ${join(workspace, CRON_FILE)} (jobs: ${jobs.map((j) => j.name).join(", ") || "none"})`);
  const pause = (await store.readPauses())[name];
  if (pause && !force) {
    io.stderr.write(`${visibleText(`${name} ${describePause(pause)}: miniclaw cron run ${name} --force runs it anyway`)}\n`);
    return 1;
  }
  const lease = await backend.cron.claimRun(job, (line) => void io.stderr.write(`${visibleText(line)}\n`));
  if (!lease) {
    io.stderr.write(`${visibleText(`${name} is running now, in another process; try again when that run ends (miniclaw cron runs ${name})`)}\n`);
    return 1;
  }
  const controller = new AbortController();
  // SIGTERM too: the run ends as interrupted and the MCP servers are stopped rather than left to the reaper.
  const signals = stopOnSignals(io, ["SIGINT", "SIGTERM"], () => controller.abort());
  try {
    const record = await executeRun(job, runJob, { clock: systemClock, signal: AbortSignal.any([controller.signal, lease.lost]) });
    if (await lease.finish(record)) printRun(record, io);
    // A forced run that went well resumes its job; a final run (after its until) leaves it ended, as its record says.
    if (pause && record.ended === undefined && (record.status === "ok" || record.status === "alert")) {
      await store.setPause(name, undefined);
      io.stderr.write(`cron: ${visibleText(name)} is resumed: the scheduler runs it again from its next start\n`);
    }
    return SUCCESS.has(record.status) ? 0 : 1;
  } finally {
    signals.off();
    await lease.release();
  }
}

/** Credentials first (as `run`), then jobs, agents, backend, mcp.json and runner. Each run opens its own assistant (edited SOUL.md files apply); the MCP servers are the process's, started once. */
async function prepare(args: CliArgs, io: CliIo): Promise<Prepared> {
  const { workspace, client, recorder } = await openWorkspace(args, io);
  const jobs = await loadCronJobs(workspace);
  const warn = warner(io);
  checkJobAgents(workspace, jobs, await loadAgents(workspace, { onWarning: warn }), args.agent);
  const backend = await openCron(args, io, workspace, { onWarning: warn });
  const plugins = await openPlugins(args, io, workspace, warn).catch(async (error: unknown) => {
    await backend.close();
    throw error;
  });
  const flags = { ...(args.model !== undefined && { model: args.model }), ...(args.permissionMode !== undefined && { permissionMode: args.permissionMode }) };
  const hooks = recorder && { hooks: recordingHooks(recorder, jobs, backend.sessions) };
  const assistant = { workspace, cwd: io.cwd, env: io.env, client, store: backend.sessions, onWarning: warn, ...plugins.options, turn: { ...turnFlags(args), ...hooks }, ...flags };
  const onEvent = (job: CronJob, event: AgentEvent): void => {
    plugins.telemetry?.(job.name)(event);
    const line = event.type === "turn_end" ? undefined : describeEvent(event, (_style, text) => text);
    if (line !== undefined) io.stderr.write(`  ${job.name} ${line.trimStart()}\n`);
  };
  const runJob = createJobRunner({ assistant, onEvent });
  const withDefaultAgent: RunJob = (job, signal) => runJob(args.agent !== undefined && job.agent === undefined ? { ...job, agent: args.agent } : job, signal);
  // Recorded runs go one at a time, so each run's requests follow its own mark in the cassette.
  const serial = recorder ? oneAtATime(withDefaultAgent) : withDefaultAgent;
  const close = async (): Promise<void> => {
    await backend.close();
    await plugins.close();
  };
  return { workspace, jobs, runJob: serial, backend, close };
}

/** `--record FILE`: each job's turn marked in the cassette (text, session, job, time) after the records its session held (once per session); a subagent's requests belong to the job's run. */
function recordingHooks(recorder: CassetteRecorder, jobs: readonly CronJob[], sessions: SessionBackend): TurnHooks {
  const jobOf = new Map(jobs.map((job) => [job.session, job.name]));
  const seen = new Set<string>();
  return {
    async onTurnStart({ sessionKey, text }) {
      const job = jobOf.get(sessionKey);
      if (job === undefined) return;
      if (!seen.has(sessionKey) && (await sessions.exists(sessionKey))) recorder.session(sessionKey, await sessions.show(sessionKey, { all: true }));
      seen.add(sessionKey);
      recorder.turn(text, sessionKey, undefined, { job, at: new Date(systemClock.now()).toISOString() });
    },
  };
}

/** `run`, with each call waiting for the one before it to end. */
function oneAtATime(run: RunJob): RunJob {
  let last: Promise<unknown> = Promise.resolve();
  return (job, signal) => {
    const next = last.then(() => run(job, signal));
    last = next.catch(() => undefined);
    return next;
  };
}
