// miniclaw/testing: a local HTTP server speaking the Messages API from scripted rules, for offline agent tests.
import { startServer } from "./server.js";
import type { Rule, ScriptedModel, ScriptedModelOptions } from "./types.js";

/**
 * Starts a scripted model on 127.0.0.1 (a free port unless `options.port`); point any Anthropic client at `baseURL`.
 * It answers `POST /v1/messages` (JSON, or the real SSE event sequence with `"stream": true`) and `POST
 * /v1/messages/count_tokens`; any other route is a 404 in the API's error shape.
 *
 * Each request is first validated like the real API (`validateRequest`): an invalid one is answered 400 and recorded in
 * `rejected`. A valid one is answered by the first rule that matches and has `times` left, or else with the text
 * `scripted model: no rule matched "<last user text>"`, recorded in `unmatched`. Usage comes from a simulated prompt
 * cache (`cacheMinTokens`). Thinking blocks are signed, and a request that sends them back altered, or drops them where
 * the API requires them, is refused (see `Reply`); server tools (web_search, web_fetch) answer from `Reply.serverTools`
 * unless `serverTools: false`. A script function (match or reply) that throws is answered 500 with its message and
 * `x-should-retry: false`.
 *
 * Throws a TypeError at once for a rule with neither `reply` nor `fault`. `close()` ends stalled responses and destroys open sockets.
 */
export function startScriptedModel(rules: readonly Rule[], options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  return startServer(rules, options);
}

export { reply } from "./reply.js";
export type { ScriptedMessage, ScriptedUsage } from "./reply.js";
export { validateRequest, countCacheBreakpoints, MAX_CACHE_BREAKPOINTS, EFFORTS, WEB_SEARCH_TYPES, WEB_FETCH_TYPES, type ValidateOptions } from "./validate.js";
export type { IssuedThinking } from "./thinking.js";
export type { ServerToolUsage } from "./server-tools.js";
export { signThinking, redactedThinkingData } from "./signature.js";
export { MIN_THINKING_BUDGET_TOKENS } from "./thinking.js";
export { estimateTokens, countInputTokens } from "./cache.js";
export type { Fault, Match, MatchFields, RecordedRequest, Reply, RequestBody, Rule, ScriptedModel, ScriptedFetch } from "./types.js";
export type { ScriptedModelOptions, ScriptedSearch, ScriptedSearchResult, ScriptedServerTool, ScriptedStopReason } from "./types.js";
