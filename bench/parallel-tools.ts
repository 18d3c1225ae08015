// Parallel tools: one response asking for five one-second read-only calls, run as miniclaw runs them and serially.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { startScriptedModel } from "../src/testing/index.js";
import type { MiniclawLibrary } from "./built-library.js";
import { roundsSoFar } from "./scripts.js";
import { median, round, timeInterleaved } from "./stats.js";

const CALLS = 5;
const CALL_MS = 1_000;
const TIMED_TURNS = 3;

/** What `benchParallelTools` measures: median wall time of the whole turn, in milliseconds. */
export interface ParallelToolsBench {
  calls: number;
  callMs: number;
  parallelMs: number;
  serialMs: number;
  turnsMs: { parallel: number[]; serial: number[] };
}

/**
 * Runs a two-request turn through `runAgentTurn` of the built library: the first
 * response asks for five calls of a tool that sleeps one second, the second answers.
 * The tool is declared `readOnly: true` (run together) or `readOnly: false` (run one
 * after another); everything else is the same. Interleaved, the median of 3 each.
 */
export async function benchParallelTools(lib: MiniclawLibrary): Promise<ParallelToolsBench> {
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-parallel-"));
  const server = await startScriptedModel([
    {
      reply: (req) =>
        roundsSoFar(req) === 0
          ? { toolUses: Array.from({ length: CALLS }, (_, i) => ({ name: "wait_a_second", input: { n: i } })) }
          : { text: "all five done" },
    },
  ]);
  try {
    const workspace = join(root, "workspace");
    await lib.ensureWorkspace(workspace);
    const agent = (await lib.loadAgents(workspace))["main"]!;
    const waiter = (readOnly: boolean) =>
      lib.defineTool({
        name: "wait_a_second",
        description: "Waits one second, as a slow read would.",
        input: z.object({ n: z.number() }),
        readOnly,
        run: async ({ n }) => {
          await sleep(CALL_MS);
          return `call ${n} done`;
        },
      });
    const env = { ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "x" };
    let turn = 0;
    const turnWith = (readOnly: boolean) => async (): Promise<void> => {
      const result = await lib.runAgentTurn(`agent:main:parallel-${turn++}`, "five slow reads", agent, { runtime: { workspace, cwd: root, env }, tools: [waiter(readOnly)] });
      if (result.stopReason !== "end_turn" || result.iterations !== 2) throw new Error(`parallel turn ended ${result.stopReason}: ${result.error ?? ""}`);
    };
    const times = await timeInterleaved({ parallel: turnWith(true), serial: turnWith(false) }, { warmup: 0, runs: TIMED_TURNS });
    return {
      calls: CALLS,
      callMs: CALL_MS,
      parallelMs: round(median(times.parallel), 0),
      serialMs: round(median(times.serial), 0),
      turnsMs: { parallel: times.parallel.map((t) => round(t, 0)), serial: times.serial.map((t) => round(t, 0)) },
    };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}
