// Benchmark of the command gate: classifications per second of checkCommandSafety, and its slowest single call, over the test corpus and a mixed corpus.
import { performance } from "node:perf_hooks";
import { checkCommandSafety } from "../src/permissions/safety.js";
import type { ApprovalLists } from "../src/permissions/safety.js";
import { COMMAND_CASES } from "../tests/permissions/fixtures/commands.js";
import { EVERYDAY_CASES } from "../tests/permissions/fixtures/everyday.js";
import { AGENT_COMMANDS } from "./gate-corpus.js";
import { median, round } from "./stats.js";

/** One corpus classified in timed rounds. */
export interface GateCorpusBench {
  /** Distinct commands, each classified once per round. */
  corpusSize: number;
  rounds: number;
  /** Median over the timed rounds of (commands classified / seconds). */
  classificationsPerSecond: number;
  /** The slowest single call of every timed round, in milliseconds, and its command. */
  slowestMs: number;
  slowestCommand: string;
  /** The 99th percentile of every timed call. */
  p99Ms: number;
  /** The command slowest by its own median over the rounds (a pause of the process rarely hits one command every round). */
  slowestMedianMs: number;
  slowestMedianCommand: string;
}

/** What `benchGate` measures. */
export interface GateBench extends GateCorpusBench {
  /** The test corpus plus everyday commands (tests/permissions/fixtures) plus agents' commands (bench/gate-corpus.ts). */
  mixed: GateCorpusBench;
}

const WARMUP_ROUNDS = 3;
const TIMED_MS = 1_000;
const MIN_ROUNDS = 5;
/** A realistic approvals file: a few exact entries, a few patterns that every command is matched against. */
const APPROVALS: ApprovalLists = {
  allowed: ["npm test", "npm run build", "npm test *", "make *", "docker compose up -d"],
  denied: ["git push *", "rm -rf /", "npm publish"],
};

/** Milliseconds of each call, in corpus order. */
async function classifyCorpus(commands: readonly string[]): Promise<number[]> {
  const times: number[] = [];
  for (const command of commands) {
    const started = performance.now();
    await checkCommandSafety(command, APPROVALS);
    times.push(performance.now() - started);
  }
  return times;
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;
}

/** Index of the largest value. */
function argMax(values: readonly number[]): number {
  return values.reduce((best, value, i) => (value > values[best]! ? i : best), 0);
}

/**
 * Classifies the corpus after a warm-up that also loads the parser, in rounds for
 * about a second (at least five), timing each call; the rate is the median of the rounds'.
 */
async function benchCorpus(commands: readonly string[]): Promise<GateCorpusBench> {
  for (let i = 0; i < WARMUP_ROUNDS; i++) await classifyCorpus(commands);
  const rounds: number[][] = [];
  const stop = performance.now() + TIMED_MS;
  while (performance.now() < stop || rounds.length < MIN_ROUNDS) rounds.push(await classifyCorpus(commands));
  const rates = rounds.map((times) => commands.length / (times.reduce((a, b) => a + b, 0) / 1000));
  const slowestPerRound = rounds.map((times) => Math.max(...times));
  const worstRound = rounds[argMax(slowestPerRound)]!;
  const medians = commands.map((_, i) => median(rounds.map((times) => times[i]!)));
  const worstMedian = argMax(medians);
  return {
    corpusSize: commands.length,
    rounds: rounds.length,
    classificationsPerSecond: Math.round(median(rates)),
    slowestMs: round(Math.max(...slowestPerRound), 3),
    slowestCommand: commands[argMax(worstRound)]!,
    p99Ms: round(percentile(rounds.flat().sort((a, b) => a - b), 0.99), 3),
    slowestMedianMs: round(medians[worstMedian]!, 3),
    slowestMedianCommand: commands[worstMedian]!,
  };
}

/**
 * The test corpus (~370 commands: safe, unsafe, bypass attempts) as before, then a
 * mixed corpus of distinct commands: that one, the everyday commands of the tests
 * and the commands of bench/gate-corpus.ts (long pipelines, builds, heredocs).
 */
export async function benchGate(): Promise<GateBench> {
  const corpus = COMMAND_CASES.map((c) => c.command);
  const mixed = [...new Set([...corpus, ...EVERYDAY_CASES.map((c) => c.command), ...AGENT_COMMANDS])];
  const base = await benchCorpus(corpus);
  return { ...base, mixed: await benchCorpus(mixed) };
}
