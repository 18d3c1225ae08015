// Turns per second of 4 processes on 4 sessions, in files and in PostgreSQL: real runAgentTurn turns against one scripted model.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import type { SessionBackend } from "../src/sessions/store.js";
import { toolLoopRule, turnNumber } from "./scripts.js";
import { median, round } from "./stats.js";

const CHILD = fileURLToPath(new URL("./turns-pg-child.mjs", import.meta.url));
/** Processes running at once, each on its own session. */
export const TURN_PROCESSES = 4;
/** Timed turns per process and run (each after one untimed turn). */
export const TURNS_PER_PROCESS = 50;
/** Runs per backend, interleaved files, PostgreSQL, files, ...; the median is reported. */
export const TURN_RUNS = 3;

/** One backend's figures: medians over the runs. */
export interface TurnsRate {
  /** Timed turns of all processes per second of the timed window. */
  turnsPerSecond: number;
  /** From the common start to the last process printing "done", in milliseconds. */
  windowMs: number;
  /** From spawning the processes to the last one exiting (start-up and the untimed turn included), in milliseconds. */
  wholeRunMs: number;
  runs: Array<{ turnsPerSecond: number; windowMs: number; wholeRunMs: number }>;
}

/** What `benchTurnsPg` measures. */
export interface TurnsPgBench {
  processes: number;
  turnsPerProcess: number;
  postgres: TurnsRate;
  files: TurnsRate;
}

/** Where the children keep their sessions: files in their workspace, or this database and schema. */
export interface TurnsTarget {
  url: string;
  schema: string;
  /** A store on the same schema, to check each session after a run. */
  store: SessionBackend;
}

interface Child {
  process: ChildProcessWithoutNullStreams;
  /** Resolves when the child has printed `line`; rejects when it exits first. */
  printed(line: string): Promise<void>;
  exited: Promise<void>;
}

function startChild(args: string[]): Child {
  const child = spawn(process.execPath, [CHILD, ...args], { env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1" }, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  const waiting: Array<() => void> = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
    waiting.splice(0).forEach((wake) => wake());
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const failure = (what: string): Error => new Error(`turns child ${args[2] ?? ""} ${what}:\n${stdout}\n${stderr}`);
  const exited = new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(failure(`exited ${String(code)}`))));
  });
  exited.catch(() => {});
  const printed = async (line: string): Promise<void> => {
    while (!stdout.split("\n").includes(line)) {
      const more = new Promise<void>((resolve) => waiting.push(resolve));
      if (await Promise.race([more.then(() => false), exited.then(() => true)])) {
        if (!stdout.split("\n").includes(line)) throw failure(`exited before printing ${line}`);
      }
    }
  };
  return { process: child, printed, exited };
}

/** One run: TURN_PROCESSES children on sessions `keys`, released together once all are ready. */
async function runOnce(model: ScriptedModel, workspace: string, keys: string[], database: string[]): Promise<TurnsRate["runs"][number]> {
  const spawned = performance.now();
  const children = keys.map((key) => startChild([model.baseURL, workspace, key, String(TURNS_PER_PROCESS), ...database]));
  try {
    await Promise.all(children.map((child) => child.printed("ready")));
    const started = performance.now();
    children.forEach((child) => child.process.stdin.write("go\n"));
    await Promise.all(children.map((child) => child.printed("done")));
    const windowMs = performance.now() - started;
    await Promise.all(children.map((child) => child.exited));
    const turns = keys.length * TURNS_PER_PROCESS;
    return { turnsPerSecond: round(turns / (windowMs / 1000), 1), windowMs: round(windowMs, 1), wholeRunMs: round(performance.now() - spawned, 1) };
  } finally {
    children.forEach((child) => child.process.kill("SIGKILL"));
  }
}

/** Every session of the run has its header and all its turns whole: 4 messages a turn, none written by a repair. */
async function checkSessions(store: SessionBackend, keys: string[]): Promise<void> {
  for (const key of keys) {
    const session = await store.load(key, { mode: "read" });
    const expected = (TURNS_PER_PROCESS + 1) * 4;
    const repaired = session.records.filter((record) => record.synthetic).length;
    if (session.messages.length !== expected || repaired > 0 || session.warnings.length > 0) {
      throw new Error(`${store.locationOf(key)}: ${session.messages.length} messages (expected ${expected}), ${repaired} repaired, warnings: ${session.warnings.join("; ")}`);
    }
  }
}

function summarize(runs: TurnsRate["runs"]): TurnsRate {
  return {
    turnsPerSecond: median(runs.map((r) => r.turnsPerSecond)),
    windowMs: median(runs.map((r) => r.windowMs)),
    wholeRunMs: median(runs.map((r) => r.wholeRunMs)),
    runs,
  };
}

/**
 * Runs TURN_PROCESSES child processes at once, each on a session of its own, each running
 * one untimed turn and then TURNS_PER_PROCESS timed ones with `runAgentTurn` from dist/
 * (one tool round a turn: two requests to the scripted model), released together. Files
 * (a fresh workspace per run) and PostgreSQL (`target`'s schema) alternate, TURN_RUNS each; every
 * session is checked whole after its run and every request valid. Needs dist/ built.
 */
export async function benchTurnsPg(target: TurnsTarget, filesStore: (workspace: string) => SessionBackend): Promise<TurnsPgBench> {
  const model = await startScriptedModel([toolLoopRule(2, (req, round) => ({ name: "note", input: { text: `turn ${turnNumber(req)} round ${round}` } }))]);
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-turns-pg-"));
  const runs = { postgres: [] as TurnsRate["runs"], files: [] as TurnsRate["runs"] };
  try {
    for (let run = 0; run < TURN_RUNS; run++) {
      const keys = Array.from({ length: TURN_PROCESSES }, (_, i) => `agent:main:bench-turns-${run}-${i}`);
      const workspace = join(root, `run-${run}`);
      runs.files.push(await runOnce(model, workspace, keys, []));
      await checkSessions(filesStore(workspace), keys);
      runs.postgres.push(await runOnce(model, workspace, keys, [target.url, target.schema]));
      await checkSessions(target.store, keys);
    }
    const expected = TURN_RUNS * 2 * TURN_PROCESSES * (TURNS_PER_PROCESS + 1) * 2;
    if (model.rejected.length > 0 || model.requests.length !== expected) {
      throw new Error(`the scripted model got ${model.requests.length} requests (expected ${expected}), rejected ${model.rejected.length}: ${model.rejected[0]?.error ?? ""}`);
    }
    return { processes: TURN_PROCESSES, turnsPerProcess: TURNS_PER_PROCESS, postgres: summarize(runs.postgres), files: summarize(runs.files) };
  } finally {
    await model.close();
    await rm(root, { recursive: true, force: true });
  }
}
