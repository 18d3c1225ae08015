// The simulated prompt cache and the token estimate: prompt parts, prefix hashes, cache reads and writes.
import { createHash } from "node:crypto";
import { contentBlocks, isRecord } from "./conversation.js";
import type { RequestBody } from "./types.js";

/** How many blocks before a breakpoint the real API looks back for an earlier cache entry. */
const CACHE_LOOKBACK_BLOCKS = 20;

/** An entry's life after its last write or read. */
const CACHE_LIFETIME_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const;
export type CacheTtl = keyof typeof CACHE_LIFETIME_MS;

/** One block of the prompt, in the API's order (tools, system, messages), with the prompt's hash and tokens up to and including it. */
export type PromptPart = { tokens: number; breakpoint: boolean; ttl?: CacheTtl; prefixHash: string; prefixTokens: number };

/** Input tokens of one response, split the way the API reports them; the writes also by lifetime. */
export type InputAccount = {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
};

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
    const ttl: CacheTtl | undefined = control == null ? undefined : isRecord(control) && control.ttl === "1h" ? "1h" : "5m";
    parts.push({ tokens, breakpoint: ttl !== undefined, ...(ttl && { ttl }), prefixHash: hash.copy().digest("hex"), prefixTokens: total });
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
  const auto = body.cache_control;
  if (auto != null && parts.length > 0) Object.assign(parts.at(-1)!, { breakpoint: true, ttl: isRecord(auto) && auto.ttl === "1h" ? "1h" : "5m" });
  return parts;
}

/** Estimated input tokens of a request, as `count_tokens` reports them. */
export function countInputTokens(body: RequestBody): number {
  return promptParts(body).at(-1)?.prefixTokens ?? 0;
}

/**
 * One server's cache: reads the longest live prefix within a breakpoint's lookback, writes from there to the last breakpoint,
 * each stretch at its breakpoint's lifetime; prefixes under `minTokens` are neither read nor written.
 */
export class PromptCache {
  readonly #entries = new Map<string, { tokens: number; lifetimeMs: number; expiresAt: number }>();

  constructor(
    private readonly minTokens: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Splits the request's input tokens into uncached, read and written, and remembers the writes. */
  account(body: RequestBody): InputAccount {
    const now = this.now();
    const parts = promptParts(body);
    const total = parts.at(-1)?.prefixTokens ?? 0;
    const breakpoints = parts.flatMap((part, index) => (part.breakpoint && part.prefixTokens >= this.minTokens && part.prefixTokens > 0 ? [{ part, index }] : []));
    const alive = (hash: string): boolean => (this.#entries.get(hash)?.expiresAt ?? -Infinity) > now;
    let read = 0;
    let readHash: string | undefined;
    for (const { index } of breakpoints) {
      for (let j = index; j >= 0 && j > index - CACHE_LOOKBACK_BLOCKS; j--) {
        const part = parts[j]!;
        if (!alive(part.prefixHash)) continue;
        if (part.prefixTokens > read) [read, readHash] = [part.prefixTokens, part.prefixHash];
        break;
      }
    }
    // A read refreshes the entry for its own lifetime, at no cost.
    const hit = readHash === undefined ? undefined : this.#entries.get(readHash);
    if (hit) hit.expiresAt = now + hit.lifetimeMs;
    const written = { "5m": 0, "1h": 0 };
    let from = read;
    for (const { part } of breakpoints) {
      const lifetimeMs = CACHE_LIFETIME_MS[part.ttl ?? "5m"];
      if (part.prefixTokens > from) written[part.ttl ?? "5m"] += part.prefixTokens - from;
      from = Math.max(from, part.prefixTokens);
      const entry = this.#entries.get(part.prefixHash);
      const longest = Math.max(lifetimeMs, entry && entry.expiresAt > now ? entry.lifetimeMs : 0);
      this.#entries.set(part.prefixHash, { tokens: part.prefixTokens, lifetimeMs: longest, expiresAt: Math.max(entry?.expiresAt ?? 0, now + lifetimeMs) });
    }
    const creation = written["5m"] + written["1h"];
    return {
      input_tokens: total - read - creation,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: creation,
      cache_creation: { ephemeral_5m_input_tokens: written["5m"], ephemeral_1h_input_tokens: written["1h"] },
    };
  }
}
