// Harness overhead: wall time per model round of a 20-round tool loop, miniclaw's runAgentTurn next to the bare loop.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { startScriptedModel } from "../src/testing/index.js";
import { runBareLoop } from "./bare-loop.mjs";
import type { MiniclawLibrary } from "./built-library.js";
import { toolLoopRule } from "./scripts.js";
import { median, round, timeInterleaved } from "./stats.js";

/** Model requests per turn: 19 tool rounds and the final answer. */
export const LOOP_ROUNDS = 20;
const WARMUP_TURNS = 15;
const TIMED_TURNS = 25;

/** What `benchHarness` measures. */
export interface HarnessBench {
  rounds: number;
  turns: number;
  /** Median wall time of a turn divided by its rounds, in milliseconds. */
  miniclawMsPerRound: number;
  bareMsPerRound: number;
  /** The same bare loop, streaming each request as miniclaw does (`messages.stream(...).finalMessage()`). */
  bareStreamMsPerRound: number;
  /**
   * The bare streaming loop sending miniclaw's request: its system prompt, its tools and its settings (taken
   * from miniclaw's first request), with the bare loop's own messages. The difference is the harness alone.
   */
  bareSameMsPerRound: number;
  /** Tools miniclaw offered the model (the built-ins plus the bench's echo). */
  miniclawTools: number;
  /** Wall time of every timed turn, in milliseconds. */
  miniclawTurnsMs: number[];
  bareTurnsMs: number[];
}

/**
 * Runs 20-round turns through `runAgentTurn` of the built library with its defaults
 * (built-in tools, skills, memory, the gate, a session file; a temp workspace from
 * the templates) plus a trivial `echo` tool, interleaved with the bare loop doing
 * the same rounds against the same scripted model. Each turn uses a new session.
 */
export async function benchHarness(lib: MiniclawLibrary): Promise<HarnessBench> {
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-harness-"));
  const server = await startScriptedModel([toolLoopRule(LOOP_ROUNDS, (_req, n) => ({ name: "echo", input: { text: `round ${n}` } }))]);
  try {
    const workspace = join(root, "workspace");
    await lib.ensureWorkspace(workspace);
    const agent = (await lib.loadAgents(workspace))["main"]!;
    const echo = lib.defineTool({
      name: "echo",
      description: "Returns its text.",
      input: z.object({ text: z.string() }),
      readOnly: true,
      run: ({ text }) => text,
    });
    const env = { ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "x" };
    let turn = 0;
    let toolsOffered = 0;
    const miniclaw = async (): Promise<void> => {
      const before = server.requests.length;
      const result = await lib.runAgentTurn(`agent:main:bench-${turn++}`, "hi", agent, { workspace, cwd: root, env, tools: [echo] });
      if (result.stopReason !== "end_turn" || result.iterations !== LOOP_ROUNDS) throw new Error(`miniclaw turn ended ${result.stopReason} after ${result.iterations} requests: ${result.error ?? ""}`);
      toolsOffered = (server.requests[before]?.body.tools ?? []).length;
    };
    const bare = async (): Promise<void> => {
      const before = server.requests.length;
      await runBareLoop({ baseURL: server.baseURL, rounds: LOOP_ROUNDS });
      if (server.requests.length - before !== LOOP_ROUNDS) throw new Error(`bare loop made ${server.requests.length - before} requests`);
    };
    const bareStream = async (): Promise<void> => {
      await runBareLoop({ baseURL: server.baseURL, rounds: LOOP_ROUNDS, stream: true });
    };
    const before = server.requests.length;
    await miniclaw();
    const { messages: _messages, stream: _stream, ...request } = server.requests[before]!.body;
    const bareSame = async (): Promise<void> => {
      const before = server.requests.length;
      await runBareLoop({ baseURL: server.baseURL, rounds: LOOP_ROUNDS, stream: true, request });
      if (server.requests.length - before !== LOOP_ROUNDS) throw new Error(`bare loop with miniclaw's request made ${server.requests.length - before} requests`);
    };
    const times = await timeInterleaved({ miniclaw, bare, bareStream, bareSame }, { warmup: WARMUP_TURNS, runs: TIMED_TURNS });
    if (server.rejected.length > 0) throw new Error(`the scripted model rejected a request: ${server.rejected[0]?.error ?? ""}`);
    return {
      rounds: LOOP_ROUNDS,
      turns: TIMED_TURNS,
      miniclawMsPerRound: round(median(times.miniclaw) / LOOP_ROUNDS, 3),
      bareMsPerRound: round(median(times.bare) / LOOP_ROUNDS, 3),
      bareStreamMsPerRound: round(median(times.bareStream) / LOOP_ROUNDS, 3),
      bareSameMsPerRound: round(median(times.bareSame) / LOOP_ROUNDS, 3),
      miniclawTools: toolsOffered,
      miniclawTurnsMs: times.miniclaw.map((t) => round(t)),
      bareTurnsMs: times.bare.map((t) => round(t)),
    };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}
