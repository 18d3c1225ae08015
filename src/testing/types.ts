// The scripted model's vocabulary: rules, replies, faults, recorded requests and the server handle.
import type Anthropic from "@anthropic-ai/sdk";

/** A request body as the client sent it: the Messages API's shape only when validation passed; a rejected body may hold anything. */
export type RequestBody = Partial<Anthropic.MessageCreateParams> & Record<string, unknown>;

/** One HTTP request the server received, in arrival order. */
export interface RecordedRequest {
  /** URL path without the query string, e.g. `/v1/messages`. */
  path: string;
  /** Request headers, names lower-cased. */
  headers: Record<string, string>;
  /** The parsed JSON body (`{}` when the body was not JSON). */
  body: RequestBody;
  /** The body asked for `"stream": true`. */
  stream: boolean;
  /** The 400 message when validation rejected the request. */
  error?: string;
}

/** The stop reasons a scripted reply may end with. */
export type ScriptedStopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "pause_turn" | "refusal" | "model_context_window_exceeded";

/** One result of a scripted web_search; `pageAge` is sent as `page_age` (e.g. "2 days ago"), null when absent. */
export type ScriptedSearchResult = { url: string; title: string; pageAge?: string };

/** A web_search the model runs at the provider: a `server_tool_use` (input `{query}`) and its `web_search_tool_result` listing `results`. */
export type ScriptedSearch = { search: string; results: ScriptedSearchResult[] };

/** A web_fetch the model runs at the provider: a plain-text document, or with `error` (an API code such as `url_not_accessible`) an error result. */
export interface ScriptedFetch {
  fetch: string;
  title?: string;
  text?: string;
  error?: string;
}

/** One server tool call of a reply. */
export type ScriptedServerTool = ScriptedSearch | ScriptedFetch;

/**
 * What the model answers, built in the API's order: thinking, redacted thinking, server tools, text, tool uses. In text,
 * thinking and tool inputs, `{{tool_result}}` and `{{user_text}}` become the request's last tool_result and user text.
 * Thinking follows the request as the model's does (left out when it does not think; signed; one added under manual
 * thinking when none is scripted). Using a server tool the request does not offer is a script error (500).
 */
export interface Reply {
  text?: string;
  toolUses?: Array<{ name: string; input: unknown; id?: string }>;
  /** One or more thinking blocks, first in the content. */
  thinking?: string | string[];
  /** How many redacted_thinking blocks follow the thinking blocks. */
  redactedThinking?: number;
  /** Server tool calls and their results, after the thinking and before the text. */
  serverTools?: ScriptedServerTool[];
  /** The text cites the first search result of `serverTools` (a script error when there is none). */
  citations?: boolean;
  /** Raw content blocks, sent as given (thinking signed as above); overrides every field that builds content. */
  content?: unknown[];
  /** Defaults to `tool_use` when the content holds a tool_use block, else `end_turn`. */
  stopReason?: ScriptedStopReason;
  /** Reported as `stop_sequence` (with `stopReason: "stop_sequence"`). */
  stopSequence?: string;
  /** Reported output tokens; defaults to an estimate of the content. */
  outputTokens?: number;
  /** Non-streaming: wait before answering. Streaming: wait before each event after the first. */
  delayMs?: number;
}

/**
 * A failure instead of (or before) a reply: `status`, an API error (`retryAfter` s, `retryAfterMs`); `dropAfterEvents`,
 * the socket destroyed after that many events; `sseError`, an error event (non-streaming: its HTTP status); `delayMs`,
 * a wait, then this rule's reply or the next matching rule's; `malformed`, a 200 whose body does not parse.
 */
export type Fault =
  | { status: number; retryAfter?: number; retryAfterMs?: number; errorType?: string; message?: string }
  | { dropAfterEvents: number }
  | { sseError: string; afterEvents?: number; message?: string }
  | { delayMs: number; afterEvents?: number }
  | { malformed: true };

/** Selects requests: all given fields must match. */
export interface MatchFields {
  /** Tests the last user message's text (tool_result blocks ignored); a string matches as a substring. */
  userText?: string | RegExp;
  /** The last user message holds a tool_result for a tool of this name and/or with this content. */
  toolResult?: { name?: string; content?: string | RegExp };
  /** Tests the system prompt's text. */
  system?: string | RegExp;
}

/** A string or RegExp tests the last user text; a function decides alone. */
export type Match = string | RegExp | MatchFields | ((req: RecordedRequest) => boolean);

/** One line of the script; without `match` it matches everything. It needs a `reply`, a `fault`, or both (only a delay fault is followed by the reply). */
export interface Rule {
  match?: Match;
  /** How many requests the rule may answer; unlimited when absent. */
  times?: number;
  /** A string is shorthand for `{ text }`. */
  reply?: Reply | string | ((req: RecordedRequest) => Reply | string | Promise<Reply | string>);
  fault?: Fault;
}

/** Options of `startScriptedModel`. */
export interface ScriptedModelOptions {
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  port?: number;
  /** Smallest prefix, in tokens, the simulated prompt cache stores (the real API: 1024). Default 0. */
  cacheMinTokens?: number;
  /** The clock the simulated prompt cache expires on; a bench moves it to simulate hours. Default the system's. */
  clock?: { now(): number };
  /** Model id reported in responses; by default the request's `model` is echoed. */
  model?: string;
  /** Tokens; a longer prompt is refused 400 "prompt is too long" as by the real API (200,000). Default: no limit. */
  contextWindow?: number;
  /** Default true. False: a typed tool is refused 400, as by a compatible provider without web_search and web_fetch. */
  serverTools?: boolean;
}

/** A running scripted model. Arrays fill as requests arrive; read them after the client is done. */
export interface ScriptedModel {
  /** Pass as `baseURL` to the Anthropic client (no trailing `/v1`). */
  baseURL: string;
  /** Every `POST /v1/messages`, valid or not, in arrival order. */
  requests: RecordedRequest[];
  /** The requests answered 400 by validation (also in `requests`). */
  rejected: RecordedRequest[];
  /** The requests no rule matched, answered with the fallback text. */
  unmatched: RecordedRequest[];
  /** Every `POST /v1/messages/count_tokens`. */
  tokenCounts: RecordedRequest[];
  /** Stops the server, destroying open connections and stalled responses. */
  close(): Promise<void>;
}
