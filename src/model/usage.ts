// Token usage in our own spelling: conversion from the API, sums, and estimated cost.
import type { ApiUsage, Usage } from "../types.js";

export const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });

/** The optional counts, written only when not zero, so a session without thinking or search reads as before. */
const COUNTS = ["cacheWrite1hTokens", "thinkingTokens", "webSearchRequests", "webFetchRequests"] as const;

/** Converts the API's usage object (fields may be null or missing on compatible servers). */
export function fromApiUsage(usage: Partial<ApiUsage> | null | undefined): Usage {
  const tokens = {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadTokens: usage?.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage?.cache_creation_input_tokens ?? 0,
  };
  const tools = usage?.server_tool_use;
  return withCounts(tokens, [usage?.cache_creation?.ephemeral_1h_input_tokens ?? 0, usage?.output_tokens_details?.thinking_tokens ?? 0, tools?.web_search_requests ?? 0, tools?.web_fetch_requests ?? 0]);
}

/** The sum of two usages. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum = (key: keyof Usage): number => (a[key] ?? 0) + (b[key] ?? 0);
  const tokens = { inputTokens: sum("inputTokens"), outputTokens: sum("outputTokens"), cacheReadTokens: sum("cacheReadTokens"), cacheWriteTokens: sum("cacheWriteTokens") };
  return withCounts(tokens, COUNTS.map(sum));
}

function withCounts(usage: Usage, counts: number[]): Usage {
  for (const [i, key] of COUNTS.entries()) if (counts[i]! > 0) usage[key] = counts[i]!;
  return usage;
}

/** All input tokens of a request, cached or not. */
export function totalInput(u: Usage): number {
  return u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens;
}

/** US dollars per web search (the API charges $10 per 1,000); fetches cost only the tokens they add. */
export const WEB_SEARCH_USD = 10 / 1000;

/** US dollars per million input and output tokens by model prefix, the first match wins (cache writes cost 1.25× input, 2× for an hour, reads 0.1×); else Sonnet's. */
const PRICES: Array<[prefix: string, input: number, output: number]> = [
  ["claude-opus-4-1", 15, 75], ["claude-opus-4-0", 15, 75], ["claude-opus", 5, 25], ["claude-haiku", 1, 5], ["claude-sonnet", 3, 15],
];
const DEFAULT_PRICE: [string, number, number] = ["", 3, 15];

/** Estimated cost in US dollars of the given usage on the given model; a Bedrock or Vertex id at the API's (global endpoint) price. */
export function estimateCostUsd(model: string, u: Usage): number {
  const name = model.replace(/^(?:[a-z]+\.)?anthropic\./, "");
  const [, input, output] = PRICES.find(([prefix]) => name.startsWith(prefix)) ?? DEFAULT_PRICE;
  const perToken = (perMillion: number): number => perMillion / 1_000_000;
  const writes = u.cacheWriteTokens * perToken(input * 1.25) + (u.cacheWrite1hTokens ?? 0) * perToken(input * 0.75);
  const tokens = u.inputTokens * perToken(input) + writes + u.cacheReadTokens * perToken(input * 0.1);
  return tokens + u.outputTokens * perToken(output) + (u.webSearchRequests ?? 0) * WEB_SEARCH_USD;
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
  return { usage, costUsd, cacheReadShare: usage.cacheReadTokens / Math.max(1, totalInput(usage)), responses };
}

/** One line: tokens in and out (thinking among them), cache read share, web searches, cost. */
export function formatUsageSummary(s: UsageSummary): string {
  const input = totalInput(s.usage);
  const thinking = s.usage.thinkingTokens ? ` (${s.usage.thinkingTokens} thinking)` : "";
  const count = s.usage.webSearchRequests ?? 0;
  const searches = count > 0 ? ` · ${count} web search${count === 1 ? "" : "es"} ($${(count * WEB_SEARCH_USD).toFixed(2)})` : "";
  const cached = `${(s.cacheReadShare * 100).toFixed(1)}% read from cache`;
  return `${s.responses} ${s.responses === 1 ? "response" : "responses"} · ${input} tokens in (${cached}) · ${s.usage.outputTokens} tokens out${thinking}${searches} · ~$${s.costUsd.toFixed(4)}`;
}
