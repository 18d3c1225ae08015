// Benchmark of the command gate: classifications per second of checkCommandSafety over the test corpus.
import { performance } from "node:perf_hooks";
import { checkCommandSafety } from "../src/permissions/safety.js";
import type { ApprovalLists } from "../src/permissions/safety.js";
import { COMMAND_CASES } from "../tests/permissions/fixtures/commands.js";

/** What `benchGate` measures. */
export interface GateBench {
  /** Median over the timed rounds of (commands classified / seconds). */
  classificationsPerSecond: number;
  /** Commands in the corpus, each classified once per round. */
  corpusSize: number;
  rounds: number;
}

const WARMUP_ROUNDS = 3;
const TIMED_MS = 1_000;
/** A realistic approvals file: a few exact entries, a few patterns that every command is matched against. */
const APPROVALS: ApprovalLists = {
  allowed: ["npm test", "npm run build", "npm test *", "make *", "docker compose up -d"],
  denied: ["git push *", "rm -rf /", "npm publish"],
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

async function classifyCorpus(commands: readonly string[]): Promise<void> {
  for (const command of commands) await checkCommandSafety(command, APPROVALS);
}

/**
 * Classifies the corpus (~300 mixed commands: safe, unsafe, bypass attempts)
 * after a warm-up that also loads the parser, in rounds for about a second;
 * resolves to the median rate of the rounds.
 */
export async function benchGate(): Promise<GateBench> {
  const commands = COMMAND_CASES.map((c) => c.command);
  for (let i = 0; i < WARMUP_ROUNDS; i++) await classifyCorpus(commands);
  const rates: number[] = [];
  const stop = performance.now() + TIMED_MS;
  while (performance.now() < stop || rates.length < 3) {
    const started = performance.now();
    await classifyCorpus(commands);
    rates.push(commands.length / ((performance.now() - started) / 1000));
  }
  return { classificationsPerSecond: Math.round(median(rates)), corpusSize: commands.length, rounds: rates.length };
}
