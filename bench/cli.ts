// CLI start and peak memory: `miniclaw run` and the bare loop as child processes against one scripted model.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RecordedRequest } from "../src/testing/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import type { MiniclawLibrary } from "./built-library.js";
import { expectSuccess, PRINT_RSS_AND_CPU, runNode, type ChildRun } from "./child.js";
import { LOOP_ROUNDS } from "./harness.js";
import { offersTool, toolLoopRule } from "./scripts.js";
import { median, round } from "./stats.js";

const MINICLAW_BIN = fileURLToPath(new URL("../bin/miniclaw.js", import.meta.url));
const BARE_LOOP = fileURLToPath(new URL("./bare-loop.mjs", import.meta.url));
const WARMUP_STARTS = 1;
const TIMED_STARTS = 7;
const TIMED_RSS_RUNS = 3;

/** What `benchCli` measures. */
export interface CliBench {
  /** Median milliseconds from spawn to the scripted model receiving the first request. */
  miniclawStartMs: number;
  bareStartMs: number;
  /** Median peak RSS of a 20-round turn, in megabytes. */
  miniclawMaxRssMb: number;
  bareMaxRssMb: number;
  startsMs: { miniclaw: number[]; bare: number[] };
  maxRssMb: { miniclaw: number[]; bare: number[] };
}

/** When the current child's first request arrived, on this process's clock. */
interface Probe {
  firstRequestAt: number | undefined;
}

/** A 20-request turn: echo for the bare loop, read_file (a built-in, all `run` offers) for miniclaw. */
function callFor(req: RecordedRequest, round: number): { name: string; input: unknown } {
  if (offersTool(req, "echo")) return { name: "echo", input: { text: `round ${round}` } };
  return { name: "read_file", input: { path: "notes.txt", offset: round + 1, limit: 1 } };
}

/**
 * Spawns `node bin/miniclaw.js run hi` (a fresh workspace copied from the templates
 * each time) and `node bench/bare-loop.mjs`, interleaved, and takes the time from
 * spawn to the first request the scripted model receives (it answers with text at
 * once). Then runs each through a 20-request tool turn with a preload that prints
 * `process.resourceUsage().maxRSS` at exit: miniclaw as users run it, `miniclaw run`,
 * calling the built-in read_file; the bare loop calling its echo tool.
 */
export async function benchCli(lib: MiniclawLibrary): Promise<CliBench> {
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-cli-"));
  const probe: Probe = { firstRequestAt: undefined };
  let toolLoop = false;
  const stamp = (): boolean => {
    probe.firstRequestAt ??= performance.now();
    return true;
  };
  const server = await startScriptedModel([
    { match: () => stamp() && !toolLoop, reply: { text: "hello" } },
    toolLoopRule(LOOP_ROUNDS, callFor),
  ]);
  try {
    await writeFile(join(root, "notes.txt"), Array.from({ length: LOOP_ROUNDS + 5 }, (_, i) => `line ${i + 1}`).join("\n"));
    const env = { PATH: process.env["PATH"] ?? "", HOME: root, NO_COLOR: "1", ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "x" };
    let runs = 0;
    const miniclaw = async (preload: string[]): Promise<ChildRun> => {
      const workspace = join(root, `workspace-${runs++}`);
      await lib.ensureWorkspace(workspace);
      return expectSuccess(await runNode([...preload, MINICLAW_BIN, "run", "hi", "--workspace", workspace], { cwd: root, env }), "miniclaw run");
    };
    const bare = async (preload: string[]): Promise<ChildRun> =>
      expectSuccess(await runNode([...preload, BARE_LOOP, String(LOOP_ROUNDS)], { cwd: root, env }), "bare loop");
    const startOf = async (start: (preload: string[]) => Promise<ChildRun>): Promise<number> => {
      probe.firstRequestAt = undefined;
      const run = await start([]);
      if (probe.firstRequestAt === undefined) throw new Error("the child made no request");
      return probe.firstRequestAt - run.spawnedAt;
    };

    const startsMs = { miniclaw: [] as number[], bare: [] as number[] };
    for (let i = 0; i < WARMUP_STARTS + TIMED_STARTS; i++) {
      const m = await startOf(miniclaw);
      const b = await startOf(bare);
      if (i < WARMUP_STARTS) continue;
      startsMs.miniclaw.push(round(m));
      startsMs.bare.push(round(b));
    }

    toolLoop = true;
    const maxRssMb = { miniclaw: [] as number[], bare: [] as number[] };
    for (let i = 0; i < TIMED_RSS_RUNS; i++) {
      const before = server.requests.length;
      const m = await miniclaw(["--import", PRINT_RSS_AND_CPU]);
      if (server.requests.length - before !== LOOP_ROUNDS || !m.stdout.includes(`done after ${LOOP_ROUNDS - 1}`)) {
        throw new Error(`miniclaw run made ${server.requests.length - before} requests: ${m.stdout} ${m.stderr}`);
      }
      const b = await bare(["--import", PRINT_RSS_AND_CPU]);
      maxRssMb.miniclaw.push(round((m.maxRssKb ?? Number.NaN) / 1024, 1));
      maxRssMb.bare.push(round((b.maxRssKb ?? Number.NaN) / 1024, 1));
    }
    if (server.rejected.length > 0) throw new Error(`the scripted model rejected a request: ${server.rejected[0]?.error ?? ""}`);
    return {
      miniclawStartMs: round(median(startsMs.miniclaw), 1),
      bareStartMs: round(median(startsMs.bare), 1),
      miniclawMaxRssMb: round(median(maxRssMb.miniclaw), 1),
      bareMaxRssMb: round(median(maxRssMb.bare), 1),
      startsMs,
      maxRssMb,
    };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}
