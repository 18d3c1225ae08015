// The shared vocabulary: agent config, turn result, stop reasons, events, usage.
import type Anthropic from "@anthropic-ai/sdk";

export type ContentBlockParam = Anthropic.ContentBlockParam;
/** A conversation message: user or assistant (the API's `system` role messages are not used). */
export interface MessageParam {
  role: "user" | "assistant";
  content: string | ContentBlockParam[];
}
export type ToolUseBlock = Anthropic.ToolUseBlock;
export type ToolResultBlockParam = Anthropic.ToolResultBlockParam;
export type ApiMessage = Anthropic.Message;
export type ApiUsage = Anthropic.Usage;

/** One agent, as read from `agents/<id>/SOUL.md`: `id` is its folder's name (in session keys, `agent:<id>:main`), `prompt` the SOUL body. */
export interface AgentConfig {
  id: string;
  /** Display name from the frontmatter. */
  name: string;
  prompt: string;
  /** Model id; falls back to `--model`, `MINICLAW_MODEL`, then the default. */
  model?: string;
  /** The model a turn moves to when `model` stays overloaded or unavailable after the retries (SOUL.md `fallback_model`). */
  fallbackModel?: string;
  /** Routing prefix such as `/research`. */
  prefix?: string;
  /** Allowlist of tool names (globs such as `mcp__github__*` too); all tools when absent. */
  tools?: string[];
  /** Output token cap per request. */
  maxTokens?: number;
  /** Model requests a turn may make before it stops with `max_iterations` (default 20); the `maxIterations` option and `--max-iterations` win. */
  maxIterations?: number;
  /** Extended thinking: `adaptive` (the model decides), `off`, or a budget in tokens (at least 1,024). Absent: the API's default. */
  thinking?: ThinkingSetting;
  /** How hard the model works (`output_config.effort`). Absent: the API's default. */
  effort?: Effort;
  /** The API's server tools `web_search` and `web_fetch`, run at the provider. */
  web?: WebSettings;
  /** Tool choice of the first request of each turn (later requests are `auto`, or the turn could never end). */
  toolChoice?: ToolChoiceSetting;
  /** Agent ids this agent may hand a task to with the `delegate` tool (no list, no tool). */
  delegates?: string[];
}

/** A JSON Schema object (its root `type` must be `"object"`). */
export type JsonSchema = Record<string, unknown>;

/** `adaptive`, `off`, or a thinking budget in tokens. */
export type ThinkingSetting = "adaptive" | "off" | number;
export type Effort = "low" | "medium" | "high" | "xhigh" | "max";
/** The accepted effort levels, in increasing order. */
export const EFFORTS: readonly Effort[] = ["low", "medium", "high", "xhigh", "max"];
/**
 * How long the prompt cache keeps a request's prefix: `5m` (the API's default), `1h` for every breakpoint (a job whose next run comes later than five
 * minutes), `auto` for an hour on the stable prefix (tools, system prompt) and five minutes on the moving tail of messages (an interactive session).
 */
export type CacheTtl = "5m" | "1h" | "auto";
/** `auto`, `any` (some tool), `none`, or `{ tool: name }` (that tool). */
export type ToolChoiceSetting = "auto" | "any" | "none" | { tool: string };

/** Settings of the web server tools; a tool that is absent is not offered. */
export interface WebSettings {
  search?: { maxUses?: number; allowedDomains?: string[]; blockedDomains?: string[] };
  fetch?: { maxUses?: number; maxContentTokens?: number; allowedDomains?: string[]; blockedDomains?: string[] };
}

/** Token counts of one response or a sum of several, in our own spelling: `thinkingTokens` are part of `outputTokens`; server tool requests are priced apart. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The part of `cacheWriteTokens` written for an hour (priced 2× input, the five-minute ones 1.25×). */
  cacheWrite1hTokens?: number;
  thinkingTokens?: number;
  webSearchRequests?: number;
  webFetchRequests?: number;
}

/** Why a turn ended: the API's stop reasons plus the harness's own. */
export type StopReason =
  | ("end_turn" | "stop_sequence" | "max_tokens" | "refusal" | "model_context_window_exceeded")
  | ("aborted" | "max_iterations" | "budget_exceeded" | "repeated_tool_call" | "output_invalid" | "error");

/** Whether a turn that stopped for `stop` succeeded: the model finished, or was cut, on its own (`miniclaw run` exits 0). Every other reason is a failure or an interruption. */
export function isSuccessfulStop(stop: StopReason): boolean {
  return stop === "end_turn" || stop === "stop_sequence" || stop === "max_tokens" || stop === "refusal";
}

/** What `runAgentTurn` resolves to: the text of the last response that had any, usage summed over every request, the estimated cost in US dollars, the requests. */
export interface TurnResult<T = unknown> {
  text: string;
  stopReason: StopReason;
  usage: Usage;
  costUsd: number;
  iterations: number;
  agentId: string;
  sessionKey: string;
  /** One-line description when `stopReason` is `error` (or a brake explains itself). */
  error?: string;
  /** The HTTP status of the API error that ended the turn (401 means bad credentials), when there was one. */
  errorStatus?: number;
  /** With the `output` option: the final answer parsed and validated against the schema (absent unless it was valid). */
  output?: T;
}

/** A decision of whoever answers an approval request; `unavailable`: nobody could answer (`run`, cron), so the call is refused and the model told why. */
export type ApprovalDecision = "allow_once" | "allow_always" | "deny_once" | "deny_always" | "unavailable";

/** Events emitted during a turn. Contract: `onEvent` is called synchronously, in order, with plain JSON-safe objects; it must not throw (a throw is ignored). */
export type AgentEvent = (
  | { type: "turn_start"; sessionKey: string; agentId: string }
  | { type: "request_start"; iteration: number; model: string }
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** `server`: a server tool (`web_search`, `web_fetch`) the provider ran; it is never gated here. */
  | { type: "tool_call"; id: string; name: string; input: unknown; server?: true }
  | { type: "approval"; id: string; command: string; decision: ApprovalDecision | "safe" | "approved" | "denied"; reason?: string }
  | { type: "tool_result"; id: string; name: string; isError: boolean; content: string; server?: true }
  /** A running tool reported how far it got (an MCP server's progress notification); `total` when it knows. */
  | { type: "tool_progress"; id: string; name: string; progress: number; total?: number; message?: string }
  /** The usage of one request; `model` and `stopReason` when it was a response of the turn's own (not a summary or a tool's side request). */
  | { type: "usage"; usage: Usage; costUsd: number; model?: string; stopReason?: ApiMessage["stop_reason"] }
  | { type: "retry"; attempt: number; reason: string; delayMs: number }
  /** The model `from` stayed overloaded or unavailable: the turn goes on with `to` (thinking off, earlier thinking left out). */
  | { type: "fallback"; from: string; to: string; reason: string }
  | { type: "compaction"; summaryTokens: number; replacedMessages: number; reason: string }
  | { type: "warning"; message: string }
  | { type: "turn_end"; stopReason: StopReason; usage: Usage; costUsd: number; iterations: number; error?: string }
  /** A delegate call started a subagent; its own events follow, tagged with `parentToolUseId`. */
  | { type: "subagent_start"; toolUseId: string; agentId: string; sessionKey: string; task: string }
  | { type: "subagent_end"; toolUseId: string; agentId: string; stopReason: StopReason; usage: Usage; costUsd: number }
  /** A steering message joined the next request. */
  | { type: "steer"; text: string }
  /** The permission mode changed (from the next tool call on). */
  | { type: "mode"; mode: PermissionModeName; previous: PermissionModeName; by: "user" | "exit_plan_mode" }
) & {
  /** Set on the events of a subagent: the id of the parent's delegate call. */
  parentToolUseId?: string;
};

/** The permission modes, in order of how much runs unasked. */
export const PERMISSION_MODES = ["plan", "dontAsk", "default", "acceptEdits", "bypassPermissions"] as const;
/**
 * `default` asks for what is not provably safe; `acceptEdits` also edits inside the roots unasked; `plan` runs only what reads; `dontAsk` refuses what
 * `default` would ask about (as `run` and cron do); `bypassPermissions` runs all but the denied, and only the user can enter it.
 */
export type PermissionModeName = (typeof PERMISSION_MODES)[number];

export type EventSink = (event: AgentEvent) => void;

/** One steering message; `id` is set by a durable inbox, and recorded so it is delivered once. */
export interface SteerMessage {
  id?: string;
  text: string;
}

/** Where steering messages wait: `take` hands over what arrived since; `delivered` is told once they are stored. */
export interface Inbox {
  take(): SteerMessage[] | Promise<SteerMessage[]>;
  delivered?(ids: string[]): void | Promise<void>;
}
