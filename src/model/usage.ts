// Token usage in our own spelling: conversion from the API, sums, and estimated cost.
import type { ApiUsage, Usage } from "../types.js";

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** The optional counts, written only when not zero, so a session without thinking or search reads as before. */
const COUNTS = ["thinkingTokens", "webSearchRequests", "webFetchRequests"] as const;

/** Converts the API's usage object (fields may be null or missing on compatible servers). */
export function fromApiUsage(usage: Partial<ApiUsage> | null | undefined): Usage {
  const tokens = { inputTokens: usage?.input_tokens ?? 0, outputTokens: usage?.output_tokens ?? 0, cacheReadTokens: usage?.cache_read_input_tokens ?? 0, cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0 };
  const tools = usage?.server_tool_use;
  return withCounts(tokens, [usage?.output_tokens_details?.thinking_tokens ?? 0, tools?.web_search_requests ?? 0, tools?.web_fetch_requests ?? 0]);
}

/** The sum of two usages. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum = (key: keyof Usage): number => (a[key] ?? 0) + (b[key] ?? 0);
  return withCounts({ inputTokens: sum("inputTokens"), outputTokens: sum("outputTokens"), cacheReadTokens: sum("cacheReadTokens"), cacheWriteTokens: sum("cacheWriteTokens") }, COUNTS.map(sum));
}

function withCounts(usage: Usage, counts: number[]): Usage {
  COUNTS.forEach((key, i) => {
    const count = counts[i] as number;
    if (count > 0) usage[key] = count;
  });
  return usage;
}

/** All input tokens of a request, cached or not. */
export function totalInput(u: Usage): number {
  return u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
}

/** Share of input tokens read from the cache, 0 when there was no input. */
export function cacheReadShare(u: Usage): number {
  const total = totalInput(u);
  return total === 0 ? 0 : u.cacheReadTokens / total;
}

/** US dollars per web search (the API charges $10 per 1,000); fetches cost only the tokens they add. */
export const WEB_SEARCH_USD = 10 / 1000;

/** US dollars per million tokens; cache writes cost 1.25× input, cache reads 0.1×. */
type Price = { input: number; output: number };

/** Prices by model family prefix, longest prefix first; unknown models use the Sonnet price. */
const PRICES: Array<[prefix: string, price: Price]> = [
  ["claude-opus-4-1", { input: 15, output: 75 }],
  ["claude-opus-4-0", { input: 15, output: 75 }],
  ["claude-opus", { input: 5, output: 25 }],
  ["claude-haiku-4", { input: 1, output: 5 }],
  ["claude-haiku", { input: 1, output: 5 }],
  ["claude-sonnet", { input: 3, output: 15 }],
];
const DEFAULT_PRICE: Price = { input: 3, output: 15 };

/** Estimated cost in US dollars of the given usage on the given model. */
export function estimateCostUsd(model: string, u: Usage): number {
  const price = PRICES.find(([prefix]) => model.startsWith(prefix))?.[1] ?? DEFAULT_PRICE;
  const perToken = (perMillion: number): number => perMillion / 1_000_000;
  return (
    u.inputTokens * perToken(price.input) +
    u.cacheWriteTokens * perToken(price.input * 1.25) +
    u.cacheReadTokens * perToken(price.input * 0.1) +
    u.outputTokens * perToken(price.output) +
    (u.webSearchRequests ?? 0) * WEB_SEARCH_USD
  );
}

/** Totals of a session reconstructed from its records alone: tokens, cache read share, estimated cost. */
export type UsageSummary = { usage: Usage; costUsd: number; cacheReadShare: number; responses: number };

/** Sums the usage stored with each response, and that of responses not stored (`discardedUsage`). */
export function summarizeUsage(records: ReadonlyArray<{ usage?: Usage | undefined; discardedUsage?: Usage | undefined; model?: string | undefined }>): UsageSummary {
  let usage = ZERO_USAGE;
  let costUsd = 0;
  let responses = 0;
  for (const record of records) {
    for (const part of [record.usage, record.discardedUsage]) {
      if (!part) continue;
      usage = addUsage(usage, part);
      costUsd += estimateCostUsd(record.model ?? "", part);
    }
    if (record.usage) responses++;
  }
  return { usage, costUsd, cacheReadShare: cacheReadShare(usage), responses };
}

/** One line: tokens in and out (thinking among them), cache read share, web searches, cost. */
export function formatUsageSummary(s: UsageSummary): string {
  const input = totalInput(s.usage);
  const thinking = s.usage.thinkingTokens ? ` (${s.usage.thinkingTokens} thinking)` : "";
  const count = s.usage.webSearchRequests ?? 0;
  const searches = count > 0 ? ` · ${count} web search${count === 1 ? "" : "es"} ($${(count * WEB_SEARCH_USD).toFixed(2)})` : "";
  const cached = `${(s.cacheReadShare * 100).toFixed(1)}% read from cache`;
  return `${s.responses} responses · ${input} tokens in (${cached}) · ${s.usage.outputTokens} tokens out${thinking}${searches} · ~$${s.costUsd.toFixed(4)}`;
}
