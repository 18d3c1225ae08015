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

/**
 * A web_fetch the model runs at the provider: a `server_tool_use` (input `{url}`) and its `web_fetch_tool_result`: a
 * plain-text document holding `text` under `title`, or with `error` (an API error code such as `url_not_accessible`)
 * a `web_fetch_tool_result_error`.
 */
export interface ScriptedFetch {
  fetch: string;
  title?: string;
  text?: string;
  error?: string;
}

/** One server tool call of a reply. */
export type ScriptedServerTool = ScriptedSearch | ScriptedFetch;

/**
 * What the model answers. The content is built in the API's order: `thinking` blocks, `redactedThinking` blocks, the
 * `serverTools` calls with their results, the `text`, then the `toolUses`; `content` gives raw blocks instead. In
 * `text`, `thinking` and string values of tool inputs, `{{tool_result}}` becomes the text of the request's last
 * tool_result and `{{user_text}}` the text of its last user message.
 *
 * Thinking follows the request, as the model does: with `thinking` absent or disabled, thinking blocks (scripted or
 * raw) are left out; with `adaptive` they are sent as given; with `enabled` too, and a reply that has none gets one
 * short thinking block of the server's own (unless the request continues a paused assistant message). The server signs
 * every thinking block it sends and gives every redacted_thinking block fresh `data`; under `display: "omitted"` the
 * thinking text is sent empty, signed as such.
 *
 * A reply that uses a server tool the request does not offer (no tool of type `web_search_*` / `web_fetch_*`) is a
 * script error: answered 500 with `x-should-retry: false`.
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
  /**
   * The text block cites the reply's first search result: one `web_search_result_location` (its url, title,
   * `encrypted_index`, and the title as `cited_text`). A script error when no search in `serverTools` has a result.
   */
  citations?: boolean;
  /** Raw content blocks, sent as given (thinking signed as above); overrides every field that builds content. */
  content?: unknown[];
  /** Defaults to `tool_use` when the content holds a tool_use block, else `end_turn`. */
  stopReason?: ScriptedStopReason;
  /** Reported as `stop_sequence` (with `stopReason: "stop_sequence"`). */
  stopSequence?: string;
  /**
   * Reported output tokens; defaults to an estimate of the content. Usage also reports `output_tokens_details.thinking_tokens`
   * when thinking was sent, and `server_tool_use` (search and fetch requests) when server tools were used.
   */
  outputTokens?: number;
  /** Non-streaming: wait before answering. Streaming: wait before each event after the first. */
  delayMs?: number;
}

/**
 * A failure instead of (or before) a reply.
 * - `status`: an HTTP error with the API's error JSON (`retryAfter` in seconds and `retryAfterMs` set the `retry-after`
 *   / `retry-after-ms` headers).
 * - `dropAfterEvents`: streaming, write that many SSE events then destroy the socket (non-streaming: destroy it before any response).
 * - `sseError`: streaming, after `afterEvents` events (default 0) send `event: error` and end (non-streaming: the
 *   matching HTTP status, e.g. 529 for `overloaded_error`).
 * - `delayMs`: wait before the response (or, streaming with `afterEvents`, after that many events), then answer with this
 *   rule's reply, or, when it has none, the next matching rule's. A huge delay is a stall only the client or `close()` ends.
 * - `malformed`: status 200 with a body that is not JSON (streaming: a broken SSE frame).
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

/**
 * One line of the script. The first rule that matches and still has `times` left answers; a rule without `match`
 * matches everything. A rule needs a `reply`, a `fault`, or both (only a delay fault is followed by the reply).
 */
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
  /** The clock the simulated prompt cache expires on (5 minutes, or 1 hour with `ttl: "1h"`, from the last write or read), in ms; a bench moves it to simulate hours. Default the system's. */
  clock?: { now(): number };
  /** Model id reported in responses; by default the request's `model` is echoed. */
  model?: string;
  /**
   * The model's context window in tokens (the real API: 200,000). When set, a longer prompt is refused with the API's
   * 400 "prompt is too long: N tokens > M maximum", and recorded in `rejected`. Default: no limit.
   */
  contextWindow?: number;
  /**
   * Whether the server offers the API's server tools (web_search, web_fetch). Default true. When false it behaves like a
   * compatible provider without them: a request with a typed tool is answered 400 `tools.N: Input tag '<type>' found
   * using 'type' does not match any of the expected tags: 'custom'`, and recorded in `rejected`.
   */
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
