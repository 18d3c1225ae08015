// Prompt cache lifetimes over simulated time: 16 heartbeats 30 minutes apart, and a 30-turn interactive session with a person's gaps, each with 5-minute and 1-hour caching.
// Alone: `npm run build && npx tsx bench/cache-ttl.ts`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startScriptedModel } from "../src/testing/index.js";
import type { CacheTtl } from "../src/types.js";
import { loadBuiltLibrary, type MiniclawLibrary } from "./built-library.js";
import { lookupTool, toolLoopRule, turnNumber } from "./scripts.js";
import { round } from "./stats.js";
import { formatTable, type Row } from "./table.js";

const MINUTE = 60_000;
/** Sonnet's smallest cached prefix. */
const CACHE_MIN_TOKENS = 1024;
/** 16 heartbeats over 8 hours: one every 30 minutes. */
const HEARTBEAT_GAPS_MIN = Array.from({ length: 15 }, () => 30);
/**
 * The 29 gaps between 30 turns of a person at the REPL, in minutes: mostly one to three (reading the reply, typing), and a
 * few breaks of 6 to 45 (a meeting, a coffee) — 2 h 39 min in all.
 */
export const INTERACTIVE_GAPS_MIN = [1, 2, 1, 3, 8, 1, 2, 1, 15, 2, 1, 1, 4, 2, 45, 1, 2, 1, 3, 1, 10, 2, 1, 2, 6, 1, 2, 1, 20];
/** A tool result of about 1.5 KB, as a short file or a command's output would be. */

/** The cost of one simulated session with one cache lifetime. */
export interface TtlRun {
  ttl: CacheTtl;
  turns: number;
  costUsd: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
}

/** What `benchCacheTtl` measures. */
export interface CacheTtlBench {
  heartbeats: TtlRun[];
  interactive: TtlRun[];
  /** The same 30 turns a minute apart each: where five minutes already suffice. */
  quick: TtlRun[];
}

/**
 * One session through `runAgentTurn` of the built library (the shipped workspace's main agent, its built-in tools and a
 * lookup tool) against the scripted model's prompt cache, whose clock moves by `gapsMin` between turns and stays still
 * within one. Each turn makes `rounds(turn)` tool rounds, then answers.
 */
async function simulate(lib: MiniclawLibrary, ttl: CacheTtl, gapsMin: number[], rounds: (turn: number) => number, text: (turn: number) => string): Promise<TtlRun> {
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-ttl-"));
  const clock = { at: Date.parse("2026-11-30T08:00:00Z") };
  const rule = toolLoopRule((req) => 1 + rounds(turnNumber(req)), (req, n) => ({ name: "lookup", input: { id: `turn ${turnNumber(req)} call ${n}` } }));
  const server = await startScriptedModel([rule], { cacheMinTokens: CACHE_MIN_TOKENS, clock: { now: () => clock.at } });
  try {
    const workspace = join(root, "workspace");
    await lib.ensureWorkspace(workspace);
    const agent = (await lib.loadAgents(workspace))["main"]!;
    const lookup = lookupTool(lib);
    const env = { ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "x" };
    const runtime = await lib.openRuntime({ workspace, cwd: root, env, tools: [lookup], includeTime: false });
    const run: TtlRun = { ttl, turns: gapsMin.length + 1, costUsd: 0, cacheReadTokens: 0, cacheWriteTokens: 0, cacheWrite1hTokens: 0 };
    try {
      for (let turn = 1; turn <= run.turns; turn++) {
        const result = await lib.runAgentTurn("agent:main:ttl", text(turn), agent, { runtime, cacheTtl: ttl });
        if (result.stopReason !== "end_turn") throw new Error(`turn ${turn} ended ${result.stopReason}: ${result.error ?? ""}`);
        run.costUsd += result.costUsd;
        run.cacheReadTokens += result.usage.cacheReadTokens;
        run.cacheWriteTokens += result.usage.cacheWriteTokens;
        run.cacheWrite1hTokens += result.usage.cacheWrite1hTokens ?? 0;
        clock.at += (gapsMin[turn - 1] ?? 0) * MINUTE;
      }
    } finally {
      await runtime.close();
    }
    if (server.rejected.length > 0) throw new Error(`the scripted model rejected a request: ${server.rejected[0]?.error ?? ""}`);
    return { ...run, costUsd: round(run.costUsd, 4) };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Heartbeats (one tool round each, the session growing) with 5m and 1h; the interactive session (one or two rounds a turn) with 5m, auto and 1h. */
export async function benchCacheTtl(lib: MiniclawLibrary): Promise<CacheTtlBench> {
  const heartbeat = (ttl: CacheTtl) => simulate(lib, ttl, HEARTBEAT_GAPS_MIN, () => 1, () => "Heartbeat: read HEARTBEAT.md and check each item; reply HEARTBEAT_OK when nothing needs attention.");
  const interactive = (ttl: CacheTtl, gaps = INTERACTIVE_GAPS_MIN) => simulate(lib, ttl, gaps, (turn) => 1 + (turn % 2), (turn) => `question ${turn}: what does the record say?`);
  const quick = INTERACTIVE_GAPS_MIN.map(() => 1);
  return {
    heartbeats: [await heartbeat("5m"), await heartbeat("1h")],
    interactive: [await interactive("5m"), await interactive("auto"), await interactive("1h")],
    quick: [await interactive("5m", quick), await interactive("auto", quick), await interactive("1h", quick)],
  };
}

/** The rows: each session's cost with 5-minute caching as the baseline of the others. */
export function cacheTtlRows(b: CacheTtlBench): Row[] {
  const row = (what: string, run: TtlRun, base: TtlRun, target = ""): Row => ({
    measurement: `${what}, cache ${run.ttl}`,
    miniclaw: `$${run.costUsd.toFixed(4)}`,
    baseline: `$${base.costUsd.toFixed(4)} with 5m`,
    ratio: `${(run.costUsd / base.costUsd).toFixed(2)}×`,
    target,
    verdict: target === "" ? "" : run.costUsd * 2 <= base.costUsd ? "holds" : "MISSED",
  });
  const [beat5m, beat1h] = b.heartbeats as [TtlRun, TtlRun];
  const [chat5m, ...chat] = b.interactive as [TtlRun, ...TtlRun[]];
  const [quick5m, ...quick] = b.quick as [TtlRun, ...TtlRun[]];
  return [
    row("16 heartbeats over 8 h (one every 30 min)", beat1h, beat5m, "≤ 0.5×"),
    ...chat.map((run) => row(`30-turn session with a person's gaps (1–45 min)`, run, chat5m)),
    ...quick.map((run) => row(`30-turn session, a turn a minute`, run, quick5m)),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const measured = await benchCacheTtl(await loadBuiltLibrary());
  process.stdout.write(`${formatTable(cacheTtlRows(measured))}\n`);
  process.stdout.write(`${JSON.stringify(measured, null, 2)}\n`);
}
