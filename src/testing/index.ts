// miniclaw/testing: a local HTTP server speaking the Messages API from scripted rules, for offline agent tests.
export { startScriptedModel } from "./server.js";
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
export { recordCassette, type CassetteRecorder } from "./record.js";
export { replay, type Replay, type ReplayOptions } from "./replay.js";
export { readCassette, CASSETTE_VERSION, type Cassette, type CassetteHeader, type CassetteTurn, type Exchange } from "./cassette.js";
export { startProviderModel, type ProviderModel, type ProviderRequest, type WireProvider } from "./provider-model.js";
