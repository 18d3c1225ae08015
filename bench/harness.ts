// Harness overhead: wall time per model round of a 20-round tool loop, miniclaw's runAgentTurn next to the bare loop.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
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
  /** The bare loop sending miniclaw's request without streaming (`messages.create`): what the request's size alone costs. */
  bareSameCreateMsPerRound: number;
  /** Tools miniclaw offered the model (the built-ins plus the bench's echo). */
  miniclawTools: number;
  /** Wall time of every timed turn, in milliseconds. */
  miniclawTurnsMs: number[];
  bareTurnsMs: number[];
}

/** The loops the harness bench times, and `bench/where-time-goes.ts` profiles, against one scripted model. */
export interface HarnessLoops {
  server: ScriptedModel;
  /** One turn of `rounds` requests through `runAgentTurn`, in a new session; throws unless it ran whole. */
  miniclaw: () => Promise<void>;
  /** The bare loop: non-streaming, and streaming. */
  bare: () => Promise<void>;
  bareStream: () => Promise<void>;
  /** The bare streaming loop sending miniclaw's request (its system prompt, tools and settings, from its first request). */
  bareSame: () => Promise<void>;
  /** The same request from the non-streaming bare loop. */
  bareSameCreate: () => Promise<void>;
  /** Tools miniclaw offered the model in its last turn. */
  toolsOffered: () => number;
  close: () => Promise<void>;
}

/**
 * Sets up the loops: the built library with its defaults (built-in tools, skills, memory, the
 * gate, a session file; a temp workspace from the templates) plus a trivial `echo` tool, and the
 * bare loop, against a scripted model asking for `rounds` - 1 echo rounds then text. Runs one
 * miniclaw turn, whose first request the same-request baseline copies.
 */
export async function openHarnessLoops(lib: MiniclawLibrary): Promise<HarnessLoops> {
  const rounds = LOOP_ROUNDS;
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-harness-"));
  const server = await startScriptedModel([toolLoopRule(rounds, (_req, n) => ({ name: "echo", input: { text: `round ${n}` } }))]);
  const close = async (): Promise<void> => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const workspace = join(root, "workspace");
    await lib.ensureWorkspace(workspace);
    const agent = (await lib.loadAgents(workspace))["main"]!;
    const echo = lib.defineTool({ name: "echo", description: "Returns its text.", input: z.object({ text: z.string() }), readOnly: true, run: ({ text }) => text });
    const env = { ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "x" };
    let turn = 0;
    let toolsOffered = 0;
    const miniclaw = async (): Promise<void> => {
      const before = server.requests.length;
      const result = await lib.runAgentTurn(`agent:main:bench-${turn++}`, "hi", agent, { runtime: { workspace, cwd: root, env }, tools: [echo] });
      if (result.stopReason !== "end_turn" || result.iterations !== rounds) throw new Error(`miniclaw turn ended ${result.stopReason} after ${result.iterations} requests: ${result.error ?? ""}`);
      toolsOffered = (server.requests[before]?.body.tools ?? []).length;
    };
    const bareRun = (options: { stream?: boolean; request?: Record<string, unknown> }, name: string) => async (): Promise<void> => {
      const before = server.requests.length;
      await runBareLoop({ baseURL: server.baseURL, rounds, ...options });
      if (server.requests.length - before !== rounds) throw new Error(`${name} made ${server.requests.length - before} requests`);
    };
    const first = server.requests.length;
    await miniclaw();
    const { messages: _messages, stream: _stream, ...request } = server.requests[first]!.body;
    return {
      server,
      miniclaw,
      bare: bareRun({}, "bare loop"),
      bareStream: bareRun({ stream: true }, "bare streaming loop"),
      bareSame: bareRun({ stream: true, request }, "bare loop with miniclaw's request"),
      bareSameCreate: bareRun({ request }, "non-streaming bare loop with miniclaw's request"),
      toolsOffered: () => toolsOffered,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs 20-round turns of miniclaw and of the four bare loops, interleaved (see `openHarnessLoops`); each miniclaw turn uses a new session. */
export async function benchHarness(lib: MiniclawLibrary): Promise<HarnessBench> {
  const loops = await openHarnessLoops(lib);
  try {
    const { miniclaw, bare, bareStream, bareSame, bareSameCreate, server } = loops;
    const times = await timeInterleaved({ miniclaw, bare, bareStream, bareSame, bareSameCreate }, { warmup: WARMUP_TURNS, runs: TIMED_TURNS });
    if (server.rejected.length > 0) throw new Error(`the scripted model rejected a request: ${server.rejected[0]?.error ?? ""}`);
    return {
      rounds: LOOP_ROUNDS,
      turns: TIMED_TURNS,
      miniclawMsPerRound: round(median(times.miniclaw) / LOOP_ROUNDS, 3),
      bareMsPerRound: round(median(times.bare) / LOOP_ROUNDS, 3),
      bareStreamMsPerRound: round(median(times.bareStream) / LOOP_ROUNDS, 3),
      bareSameMsPerRound: round(median(times.bareSame) / LOOP_ROUNDS, 3),
      bareSameCreateMsPerRound: round(median(times.bareSameCreate) / LOOP_ROUNDS, 3),
      miniclawTools: loops.toolsOffered(),
      miniclawTurnsMs: times.miniclaw.map((t) => round(t)),
      bareTurnsMs: times.bare.map((t) => round(t)),
    };
  } finally {
    await loops.close();
  }
}
