// Whole processes with run_command: `miniclaw run`, a library script and the bare shell loop, each from spawn to exit, at 1 and 19 rounds of `echo hi`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import type { RecordedRequest, Rule } from "../src/testing/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import type { MiniclawLibrary } from "./built-library.js";
import { roundsSoFar } from "./scripts.js";
import { median, round } from "./stats.js";
import { expectSuccess, PRINT_RSS_AND_CPU, runNode, type ChildRun } from "./child.js";

const MINICLAW_BIN = fileURLToPath(new URL("../bin/miniclaw.js", import.meta.url));
const LIBRARY_RUN = fileURLToPath(new URL("./library-run.mjs", import.meta.url));
const BARE_SHELL_LOOP = fileURLToPath(new URL("./bare-shell-loop.mjs", import.meta.url));
const PROMPT = "hi";
/** Timed runs of each harness at each round count, unless the caller asks for another number. */
export const PROCESS_RUNS = 15;
/** Tool rounds of the short and the long turn; the long one is a 20-request turn, miniclaw's default cap. */
export const SHORT_ROUNDS = 1;
export const LONG_ROUNDS = 19;

/**
 * The contenders: `node bin/miniclaw.js run`, `node bench/library-run.mjs`, `node bench/bare-shell-loop.mjs`,
 * the same bare loop streaming its requests as miniclaw does (`... stream`), which shows what streaming costs, and
 * `miniclaw run` with its sandbox on, as users run it where bubblewrap works (the others run without one).
 */
export const HARNESSES = ["miniclaw", "library", "bare", "bareStream", "miniclawSandboxed"] as const;
export type Harness = (typeof HARNESSES)[number];

/** What one process run measured, in milliseconds and megabytes. */
export interface RunFigures {
  /** Spawn → the scripted model receiving the first request. */
  startMs: number;
  /** Spawn → exit. */
  wholeMs: number;
  /** The scripted model sending its final (text) response → exit. */
  tailMs: number;
  /** The first request → the final response: the turn's rounds, without the process's start and exit. */
  spanMs: number;
  /** Peak resident set size. */
  maxRssMb: number;
  /** CPU time of all the process's threads at its exit event, user + system. */
  cpuMs: number;
}

/** One harness: the medians at both round counts, the per-round figures derived from them, and every run. */
export interface HarnessRuns {
  short: RunFigures;
  long: RunFigures;
  /**
   * (median span at LONG_ROUNDS − at SHORT_ROUNDS) / (LONG_ROUNDS − SHORT_ROUNDS): the rounds alone. The start
   * and the exit have rows of their own, and a difference of whole runs also counts how the exit tail changes with
   * the length of the run (the bare loop's is longer after 1 round than after 19, by 45-68 ms in the runs so far:
   * Node's fetch is still compiling its parser when a 1-round run ends).
   */
  perRoundMs: number;
  /** The same from whole runs, spawn → exit, as issue 18 measures it. */
  perRoundWholeMs: number;
  /** The same of the CPU time. */
  cpuPerRoundMs: number;
  runs: { short: RunFigures[]; long: RunFigures[] };
}

/** What `benchProcessRuns` measures. */
export interface ProcessRunsBench {
  /** Timed runs of each harness at each round count (after one warm-up run each). */
  runs: number;
  shortRounds: number;
  longRounds: number;
  /** How the bare loop runs a command. */
  bareShell: string;
  harnesses: Record<Harness, HarnessRuns>;
}

/** When the current run's first request and final response happened, on this process's clock. */
interface Probe {
  rounds: number;
  firstRequestAt: number | undefined;
  finalAt: number | undefined;
}

/** A content block as the wire has it. */
interface WireBlock {
  type?: unknown;
  content?: unknown;
  is_error?: unknown;
}

/** The tool results of a request, as the wire has them. */
function toolResultsOf(req: RecordedRequest | undefined): WireBlock[] {
  const messages = (req?.body.messages ?? []) as Array<{ content?: unknown }>;
  return messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as WireBlock[]).filter((b) => b.type === "tool_result") : []));
}

/** Throws unless the run made `rounds + 1` requests and every command ran and printed its `hi N`. */
function checkRun(harness: Harness, rounds: number, run: ChildRun, requests: readonly RecordedRequest[]): void {
  const results = toolResultsOf(requests.at(-1));
  const printed = results.every((r, i) => r.is_error !== true && JSON.stringify(r.content).includes(`hi ${i + 1}`));
  if (requests.length !== rounds + 1 || results.length !== rounds || !printed || !run.stdout.includes(`done after ${rounds} tool rounds`)) {
    throw new Error(`${harness} made ${requests.length} requests for ${rounds} rounds: ${JSON.stringify(results.at(-1))}\n${run.stdout}\n${run.stderr}`);
  }
}

function figuresOf(run: ChildRun, probe: Probe): RunFigures {
  if (probe.firstRequestAt === undefined || probe.finalAt === undefined) throw new Error("the child made no request");
  if (run.maxRssKb === undefined || run.cpuUs === undefined) throw new Error(`the child reported no peak RSS and CPU:\n${run.stderr}`);
  return {
    startMs: round(probe.firstRequestAt - run.spawnedAt, 1),
    wholeMs: round(run.exitedAt - run.spawnedAt, 1),
    tailMs: round(run.exitedAt - probe.finalAt, 1),
    spanMs: round(probe.finalAt - probe.firstRequestAt, 1),
    maxRssMb: round(run.maxRssKb / 1024, 1),
    cpuMs: round(run.cpuUs / 1000, 1),
  };
}

function mediansOf(runs: readonly RunFigures[]): RunFigures {
  const of = (field: keyof RunFigures): number => round(median(runs.map((r) => r[field])), 1);
  return { startMs: of("startMs"), wholeMs: of("wholeMs"), tailMs: of("tailMs"), spanMs: of("spanMs"), maxRssMb: of("maxRssMb"), cpuMs: of("cpuMs") };
}

function summarize(runs: { short: RunFigures[]; long: RunFigures[] }): HarnessRuns {
  const short = mediansOf(runs.short);
  const long = mediansOf(runs.long);
  const extra = LONG_ROUNDS - SHORT_ROUNDS;
  const perRound = (field: "spanMs" | "wholeMs" | "cpuMs"): number => round((long[field] - short[field]) / extra);
  return { short, long, perRoundMs: perRound("spanMs"), perRoundWholeMs: perRound("wholeMs"), cpuPerRoundMs: perRound("cpuMs"), runs };
}

/** `probe.rounds` responses asking for run_command `echo hi K`, then a text; stamps the first request and the final response. */
function shellRule(probe: Probe): Rule {
  return {
    reply: (req) => {
      probe.firstRequestAt ??= performance.now();
      const done = roundsSoFar(req);
      if (done < probe.rounds) return { toolUses: [{ name: "run_command", input: { command: `echo hi ${done + 1}` } }] };
      probe.finalAt = performance.now();
      return { text: `done after ${done} tool rounds` };
    },
  };
}

/** `harnesses` turned `by` places, so that no harness always runs first after another's exit. */
function rotated(by: number): Harness[] {
  return HARNESSES.map((_, i) => HARNESSES[(i + by) % HARNESSES.length]!);
}

/**
 * Spawns each harness as a process against one scripted model that answers at once:
 * N responses each asking for `run_command` with `echo hi K` (K = 1..N, so no
 * repeat brake fires), then a text. `miniclaw run` and the library script get a
 * fresh workspace from the templates each run (made before the spawn, not timed);
 * the bare loop runs each command with `/bin/bash -c` through `child_process.spawn`,
 * once with `messages.create` and once streaming its requests as miniclaw does.
 * One warm-up run each at N = SHORT_ROUNDS, then `runs` repetitions of N =
 * SHORT_ROUNDS and N = LONG_ROUNDS, the four harnesses interleaved in a rotating
 * order. Every child is started with a preload that reports its peak RSS and CPU.
 */
export async function benchProcessRuns(lib: MiniclawLibrary, { runs = PROCESS_RUNS }: { runs?: number } = {}): Promise<ProcessRunsBench> {
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-process-"));
  const probe: Probe = { rounds: SHORT_ROUNDS, firstRequestAt: undefined, finalAt: undefined };
  const server = await startScriptedModel([shellRule(probe)]);
  try {
    // miniclaw's sandbox off: the bare loop has none, so these rows compare harness with harness; the sandbox's cost per command has rows of its own.
    const env = { PATH: process.env["PATH"] ?? "", HOME: root, NO_COLOR: "1", ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "x", MINICLAW_SANDBOX: "off" };
    let workspaces = 0;
    const argsOf = async (harness: Harness): Promise<string[]> => {
      if (harness === "bare" || harness === "bareStream") return [BARE_SHELL_LOOP, String(LONG_ROUNDS + 1), PROMPT, ...(harness === "bareStream" ? ["stream"] : [])];
      const workspace = join(root, `workspace-${workspaces++}`);
      await lib.ensureWorkspace(workspace);
      return harness === "library" ? [LIBRARY_RUN, workspace, PROMPT] : [MINICLAW_BIN, "run", PROMPT, "--workspace", workspace];
    };
    const runOnce = async (harness: Harness, rounds: number): Promise<RunFigures> => {
      const args = await argsOf(harness);
      Object.assign(probe, { rounds, firstRequestAt: undefined, finalAt: undefined });
      const before = server.requests.length;
      const own = harness === "miniclawSandboxed" ? { ...env, MINICLAW_SANDBOX: "on" } : env;
      const run = expectSuccess(await runNode(["--import", PRINT_RSS_AND_CPU, ...args], { cwd: root, env: own }), harness);
      checkRun(harness, rounds, run, server.requests.slice(before));
      return figuresOf(run, probe);
    };

    const all = Object.fromEntries(HARNESSES.map((h) => [h, { short: [] as RunFigures[], long: [] as RunFigures[] }])) as Record<Harness, HarnessRuns["runs"]>;
    for (const harness of HARNESSES) await runOnce(harness, SHORT_ROUNDS);
    for (let i = 0; i < runs; i++) {
      for (const harness of rotated(i)) all[harness].short.push(await runOnce(harness, SHORT_ROUNDS));
      for (const harness of rotated(i)) all[harness].long.push(await runOnce(harness, LONG_ROUNDS));
    }
    if (server.rejected.length > 0) throw new Error(`the scripted model rejected a request: ${server.rejected[0]?.error ?? ""}`);
    const harnesses = Object.fromEntries(HARNESSES.map((h) => [h, summarize(all[h])])) as Record<Harness, HarnessRuns>;
    return { runs, shortRounds: SHORT_ROUNDS, longRounds: LONG_ROUNDS, bareShell: "/bin/bash -c through child_process.spawn", harnesses };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}
