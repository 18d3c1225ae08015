// Benchmark of the command gate: classifications per second of checkCommandSafety, and its slowest single call, over the test corpus and a mixed corpus.
import { performance, PerformanceObserver } from "node:perf_hooks";
import { checkCommandSafety } from "../src/shell/safety.js";
import type { ApprovalLists } from "../src/shell/safety.js";
import { COMMAND_CASES } from "../tests/shell/fixtures/commands.js";
import { EVERYDAY_CASES } from "../tests/shell/fixtures/everyday.js";
import { AGENT_COMMANDS } from "./gate-corpus.js";
import { median, percentile, round } from "./stats.js";

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
  /** The slowest call that no garbage collection of the process paused, and its command. */
  slowestUnpausedMs: number;
  slowestUnpausedCommand: string;
  /** Calls of 1 ms or more, and how many of them a garbage collection paused. */
  callsOver1Ms: number;
  pausedOver1Ms: number;
  /** Every timed call. */
  calls: number;
  /** Garbage collections during the timed rounds, and their median pause in milliseconds. */
  collections: number;
  collectionMedianMs: number;
  /** The 99th percentile of every timed call. */
  p99Ms: number;
  /** The command slowest by its own median over the rounds (a pause of the process rarely hits one command every round). */
  slowestMedianMs: number;
  slowestMedianCommand: string;
}

/** What `benchGate` measures. */
export interface GateBench extends GateCorpusBench {
  /**
   * The machine's own pauses, for scale: the longest gap a loop doing nothing but read the clock saw in a
   * second that no garbage collection of this process overlapped, and its gaps of 1 ms or more.
   */
  idleLoopMaxGapMs: number;
  idleLoopGapsOver1Ms: number;
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

/** One timed call: when it started and how long it took, in milliseconds. */
interface Call {
  startMs: number;
  ms: number;
}

/** Each call, in corpus order. */
async function classifyCorpus(commands: readonly string[]): Promise<Call[]> {
  const calls: Call[] = [];
  for (const command of commands) {
    const started = performance.now();
    await checkCommandSafety(command, APPROVALS);
    calls.push({ startMs: started, ms: performance.now() - started });
  }
  return calls;
}

/** The gaps of 0.1 ms or more, as [start, end], that a loop doing nothing but read the clock sees over `ms`. */
function clockGaps(ms: number): Array<[number, number]> {
  const gaps: Array<[number, number]> = [];
  let last = performance.now();
  const stop = last + ms;
  while (last < stop) {
    const now = performance.now();
    if (now - last >= 0.1) gaps.push([last, now]);
    last = now;
  }
  return gaps;
}

/** Whether a collection in `pauses` overlapped the span from `start` to `end`. */
function overlaps(pauses: ReadonlyArray<[number, number]>, start: number, end: number): boolean {
  return pauses.some(([from, to]) => from < end && to > start);
}

/** Runs `work` while recording the process's garbage collections, as [start, end] in milliseconds. */
async function withCollections<T>(work: () => Promise<T>): Promise<{ result: T; pauses: Array<[number, number]> }> {
  const pauses: Array<[number, number]> = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push([entry.startTime, entry.startTime + entry.duration]);
  });
  observer.observe({ entryTypes: ["gc"] });
  try {
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, 0)); // entries are delivered after the task that saw them
    return { result, pauses };
  } finally {
    observer.disconnect();
  }
}

/** Index of the largest value. */
function argMax(values: readonly number[]): number {
  return values.reduce((best, value, i) => (value > values[best]! ? i : best), 0);
}

/**
 * Classifies the corpus after a warm-up that also loads the parser, in rounds for
 * about a second (at least five), timing each call; the rate is the median of the rounds'.
 * The process's garbage collections are recorded meanwhile: a scavenge of the young
 * generation pauses whichever call is running, whoever allocated what it collects.
 */
async function benchCorpus(commands: readonly string[]): Promise<GateCorpusBench> {
  for (let i = 0; i < WARMUP_ROUNDS; i++) await classifyCorpus(commands);
  const { result: timed, pauses } = await withCollections(async () => {
    const out: Call[][] = [];
    const stop = performance.now() + TIMED_MS;
    while (performance.now() < stop || out.length < MIN_ROUNDS) out.push(await classifyCorpus(commands));
    return out;
  });
  const paused = (call: Call): boolean => overlaps(pauses, call.startMs, call.startMs + call.ms);
  const unpaused = timed.flatMap((calls) => calls.flatMap((call, i) => (paused(call) ? [] : [{ ms: call.ms, i }])));
  const slowestUnpaused = unpaused[argMax(unpaused.map((call) => call.ms))];
  const over = timed.flat().filter((call) => call.ms >= 1);
  const rounds = timed.map((calls) => calls.map((call) => call.ms));
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
    slowestUnpausedMs: round(slowestUnpaused?.ms ?? Number.NaN, 3),
    slowestUnpausedCommand: commands[slowestUnpaused?.i ?? 0]!,
    callsOver1Ms: over.length,
    pausedOver1Ms: over.filter(paused).length,
    calls: timed.flat().length,
    collections: pauses.length,
    collectionMedianMs: round(median(pauses.map(([start, end]) => end - start)), 3),
    p99Ms: round(percentile(rounds.flat(), 0.99), 3),
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
  // The machine's pauses, once, between the two corpora: the gaps no collection of this process overlapped.
  const clock = await withCollections(async () => clockGaps(TIMED_MS));
  const gaps = clock.result.filter(([start, end]) => !overlaps(clock.pauses, start, end)).map(([start, end]) => end - start);
  const idle = { idleLoopMaxGapMs: round(Math.max(0, ...gaps), 3), idleLoopGapsOver1Ms: gaps.filter((gap) => gap >= 1).length };
  return { ...base, ...idle, mixed: await benchCorpus(mixed) };
}
