// Prompt cache: the share of input tokens read from the cache over a 30-turn session with tool calls, next to its ceiling; with thinking off and on.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promptParts } from "../src/testing/cache.js";
import { startScriptedModel, type RecordedRequest } from "../src/testing/index.js";
import type { MiniclawLibrary } from "./built-library.js";
import { lookupTool, toolLoopRule, turnNumber } from "./scripts.js";
import { round } from "./stats.js";

const TURNS = 30;
/** A tool result of about 1.5 KB, as a short file or a command's output would be. */

/** What `benchCache` measures. */
export interface CacheBench {
  /** The thinking setting of every turn: a budget (the scripted model then thinks in every response), or none. */
  thinking: number | "none";
  turns: number;
  requests: number;
  /** Input tokens of all requests (uncached + read + written), as the scripted model counted them. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** cacheReadTokens / inputTokens, in percent. */
  readSharePct: number;
  /** Tokens of each request already sent in an earlier one, over all input tokens, in percent. */
  ceilingPct: number;
}

/** Tokens of each request that an earlier request already sent (its longest prefix seen before). */
function alreadySentTokens(requests: readonly RecordedRequest[]): { total: number; seen: number } {
  const sent = new Set<string>();
  let total = 0;
  let seen = 0;
  for (const req of requests) {
    const parts = promptParts(req.body);
    total += parts.at(-1)?.prefixTokens ?? 0;
    seen += parts.reduce((best, part) => (sent.has(part.prefixHash) ? Math.max(best, part.prefixTokens) : best), 0);
    for (const part of parts) sent.add(part.prefixHash);
  }
  return { total, seen };
}

/**
 * Runs a 30-turn session through `runAgentTurn` of the built library (defaults, a temp
 * workspace) against the scripted model's prompt cache with `cacheMinTokens: 0`. Each
 * turn: a user message, one tool round (odd turns) or two (even turns), a text answer.
 */
export async function benchCache(lib: MiniclawLibrary, options: { thinkingBudget?: number } = {}): Promise<CacheBench> {
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-cache-"));
  const rule = toolLoopRule(
    (req) => 2 + (turnNumber(req) % 2),
    (req, n) => ({ name: "lookup", input: { id: `turn ${turnNumber(req)} call ${n}` } }),
  );
  const server = await startScriptedModel([rule], { cacheMinTokens: 0 });
  try {
    const workspace = join(root, "workspace");
    await lib.ensureWorkspace(workspace);
    const agent = (await lib.loadAgents(workspace))["main"]!;
    const lookup = lookupTool(lib);
    const env = { ANTHROPIC_BASE_URL: server.baseURL, ANTHROPIC_API_KEY: "x" };
    const usage = { input: 0, read: 0, write: 0 };
    for (let turn = 1; turn <= TURNS; turn++) {
      const thinking = options.thinkingBudget === undefined ? {} : { thinking: options.thinkingBudget };
      const result = await lib.runAgentTurn("agent:main:cache", `question ${turn}: what does the record say?`, agent, { runtime: { workspace, cwd: root, env }, tools: [lookup], ...thinking });
      if (result.stopReason !== "end_turn") throw new Error(`cache turn ${turn} ended ${result.stopReason}: ${result.error ?? ""}`);
      usage.input += result.usage.inputTokens;
      usage.read += result.usage.cacheReadTokens;
      usage.write += result.usage.cacheWriteTokens;
    }
    if (server.rejected.length > 0) throw new Error(`the scripted model rejected a request: ${server.rejected[0]?.error ?? ""}`);
    const inputTokens = usage.input + usage.read + usage.write;
    const ceiling = alreadySentTokens(server.requests);
    return {
      thinking: options.thinkingBudget ?? "none",
      turns: TURNS,
      requests: server.requests.length,
      inputTokens,
      cacheReadTokens: usage.read,
      cacheWriteTokens: usage.write,
      readSharePct: round((100 * usage.read) / inputTokens, 1),
      ceilingPct: round((100 * ceiling.seen) / ceiling.total, 1),
    };
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}
