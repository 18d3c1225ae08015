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

/** One agent, as read from `agents/<id>/SOUL.md`. */
export interface AgentConfig {
  /** Folder name under `agents/`, used in session keys (`agent:<id>:main`). */
  id: string;
  /** Display name from the frontmatter. */
  name: string;
  /** The SOUL body: the agent's own system prompt. */
  prompt: string;
  /** Model id; falls back to `--model`, `MINICLAW_MODEL`, then the default. */
  model?: string;
  /** Routing prefix such as `/research`. */
  prefix?: string;
  /** Allowlist of tool names; all tools when absent. */
  tools?: string[];
  /** Output token cap per request. */
  maxTokens?: number;
}

/** Token counts of one response or a sum of several, in our own spelling. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** Why a turn ended: the API's stop reasons plus the harness's own. */
export type StopReason =
  | "end_turn"
  | "stop_sequence"
  | "max_tokens"
  | "refusal"
  | "model_context_window_exceeded"
  | "aborted"
  | "max_iterations"
  | "budget_exceeded"
  | "repeated_tool_call"
  | "error";

const SUCCESSFUL_STOPS: ReadonlySet<StopReason> = new Set(["end_turn", "stop_sequence", "max_tokens", "refusal"]);

/**
 * Whether a turn that stopped for `stop` succeeded: the model finished, or was cut, on its own
 * (`miniclaw run` exits 0, a cron run is no error). Every other reason is a failure or an interruption.
 */
export function isSuccessfulStop(stop: StopReason): boolean {
  return SUCCESSFUL_STOPS.has(stop);
}

/** What `runAgentTurn` resolves to. */
export interface TurnResult {
  /** The final assistant text of the turn (text blocks of the last response). */
  text: string;
  stopReason: StopReason;
  /** Summed over every request of the turn. */
  usage: Usage;
  /** Estimated cost in US dollars from the model's price table. */
  costUsd: number;
  /** Number of model requests made. */
  iterations: number;
  /** The agent that answered and the session it wrote to. */
  agentId: string;
  sessionKey: string;
  /** One-line description when `stopReason` is `error` (or a brake explains itself). */
  error?: string;
  /** The HTTP status of the API error that ended the turn (401 means bad credentials), when there was one. */
  errorStatus?: number;
}

/**
 * A decision of whoever answers an approval request. `unavailable` means nobody
 * could answer (`run`, `cron`): the command is refused and the model told it needs the user's approval.
 */
export type ApprovalDecision = "allow_once" | "allow_always" | "deny_once" | "deny_always" | "unavailable";

/**
 * Events emitted during a turn. Contract: `onEvent` is called synchronously, in
 * order, with plain JSON-safe objects; it must not throw (a throw is caught and ignored).
 */
export type AgentEvent =
  | { type: "turn_start"; sessionKey: string; agentId: string }
  | { type: "request_start"; iteration: number; model: string }
  | { type: "text_delta"; text: string }
  | { type: "tool_call"; id: string; name: string; input: unknown }
  | { type: "approval"; id: string; command: string; decision: ApprovalDecision | "safe" | "approved" | "denied"; reason?: string }
  | { type: "tool_result"; id: string; name: string; isError: boolean; content: string }
  | { type: "usage"; usage: Usage; costUsd: number }
  | { type: "retry"; attempt: number; reason: string; delayMs: number }
  | { type: "compaction"; summaryTokens: number; replacedMessages: number; reason: string }
  | { type: "warning"; message: string }
  | { type: "turn_end"; stopReason: StopReason; usage: Usage; costUsd: number; iterations: number; error?: string };

export type EventSink = (event: AgentEvent) => void;
