// The simulated prompt cache and the token estimate: prompt parts, prefix hashes, cache reads and writes.
import { createHash } from "node:crypto";
import { contentBlocks, isRecord } from "./conversation.js";
import type { RequestBody } from "./types.js";

/** How many blocks before a breakpoint the real API looks back for an earlier cache entry. */
const CACHE_LOOKBACK_BLOCKS = 20;

/** One block of the prompt in the order the API reads it (tools, system, messages): whether it carries `cache_control`, and the prompt's hash and tokens up to and including it. */
export type PromptPart = { tokens: number; breakpoint: boolean; prefixHash: string; prefixTokens: number };

/** Input tokens of one response, split the way the API reports them. */
export type InputAccount = { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };

/** The estimate used everywhere: a quarter of the characters of the value's JSON, rounded up. */
export function estimateTokens(value: unknown): number {
  return Math.ceil((JSON.stringify(value) ?? "").length / 4);
}

/** The prompt as parts. A top-level `cache_control` puts a breakpoint on the last block, as the API's automatic caching does. */
export function promptParts(body: RequestBody): PromptPart[] {
  const hash = createHash("sha256").update(String(body.model));
  const parts: PromptPart[] = [];
  let total = 0;
  const add = (key: string, block: unknown): void => {
    const { cache_control: control, ...rest } = isRecord(block) ? block : { cache_control: undefined };
    // One serialisation per block serves both the estimate and the hash.
    const json = JSON.stringify(isRecord(block) ? rest : block) ?? "";
    const tokens = Math.ceil(json.length / 4);
    total += tokens;
    hash.update(`\u0000${key}\u0000${json}`);
    parts.push({ tokens, breakpoint: control != null, prefixHash: hash.copy().digest("hex"), prefixTokens: total });
  };
  // A deferred tool is not part of the prompt until a tool search finds it: its definition is neither cached nor counted.
  for (const tool of Array.isArray(body.tools) ? body.tools : []) if (!(isRecord(tool) && tool.defer_loading === true)) add("tool", tool);
  const system: unknown = body.system;
  if (typeof system === "string" && system !== "") add("system", system);
  if (Array.isArray(system)) for (const block of system) add("system", block);
  const messages: unknown = body.messages;
  (Array.isArray(messages) ? messages : []).forEach((message: unknown, i) => {
    const m = isRecord(message) ? message : {};
    for (const block of contentBlocks(m.content)) add(`message ${i} ${String(m.role)}`, block);
  });
  if (body.cache_control != null && parts.length > 0) parts.at(-1)!.breakpoint = true;
  return parts;
}

/** Estimated input tokens of a request, as `count_tokens` reports them. */
export function countInputTokens(body: RequestBody): number {
  return promptParts(body).at(-1)?.prefixTokens ?? 0;
}

/**
 * The prefixes written at breakpoints (hash → tokens) across the requests of one server, with no expiry. Reads the
 * longest remembered prefix within the lookback window of a breakpoint; writes from there up to the last breakpoint;
 * prefixes shorter than `minTokens` are neither read nor written.
 */
export class PromptCache {
  readonly #written = new Map<string, number>();

  constructor(private readonly minTokens: number) {}

  /** Splits the request's input tokens into uncached, read and written, and remembers the writes. */
  account(body: RequestBody): InputAccount {
    const parts = promptParts(body);
    const total = parts.at(-1)?.prefixTokens ?? 0;
    const breakpoints = parts.flatMap((part, index) => (part.breakpoint && part.prefixTokens >= this.minTokens && part.prefixTokens > 0 ? [{ part, index }] : []));
    let read = 0;
    for (const { index } of breakpoints) {
      for (let j = index; j >= 0 && j > index - CACHE_LOOKBACK_BLOCKS; j--) {
        const part = parts[j]!;
        if (!this.#written.has(part.prefixHash)) continue;
        read = Math.max(read, part.prefixTokens);
        break;
      }
    }
    const creation = Math.max(0, (breakpoints.at(-1)?.part.prefixTokens ?? 0) - read);
    for (const { part } of breakpoints) this.#written.set(part.prefixHash, part.prefixTokens);
    return { input_tokens: total - read - creation, cache_read_input_tokens: read, cache_creation_input_tokens: creation };
  }
}
