// The public API of miniclaw's core, as named re-exports; the optional parts are subpath exports (miniclaw/shell, /mcp, /postgres, /cron, /testing).

export { runAgentTurn, streamAgentTurn, type TurnMessage } from "./loop/run-turn.js";
export type { TurnOptions, TurnHooks, TurnStartAddition } from "./loop/turn-options.js";
export { openRuntime, type Runtime, type RuntimeOptions, type RuntimeSettings } from "./runtime/open-runtime.js";

export { defineTool, type Tool, type AnyTool, type ToolContext, type ToolOutput, type ToolSpec, type AccessRule, type NeedsApproval, type TurnScope } from "./tools/define.js";
export type { ToolSource, ToolView } from "./tools/source.js";
export type { ToolHooks, ToolCall, BeforeToolUseResult } from "./tools/dispatch.js";

export { checkCommandSafety } from "./shell/index.js";
export type { Access, CommandJudge, CommandVerdict, Decision, Gate, Grant, LeavePlanAnswer, ModeHolder, PermissionMode } from "./gate/context.js";

export { loadAgents } from "./runtime/agents.js";
export { resolveAgent } from "./assistant/routing.js";
export { openAssistant, type Assistant, type AssistantOptions, type SendOptions } from "./assistant/assistant.js";
export { ensureWorkspace } from "./runtime/workspace.js";

export { SessionStore, type SessionStorage, type SessionBackend, type LoadedSession, type LoadOptions, type SessionListing } from "./sessions/store.js";
export { exportSession, importSession } from "./sessions/session-listing.js";
export type { SessionRecord, MessageRecord, CompactionRecord, HeaderRecord, OutputRecord } from "./sessions/records.js";
export { SkillLoader } from "./skills/loader.js";
export { MemoryStore } from "./memory/store.js";

export { createClient } from "./model/client.js";
export { estimateCostUsd } from "./model/usage.js";

export type { Approver, ApprovalRequest, Clock, Spawn } from "./deps.js";
export { MiniclawError, ConfigError, SessionError, ToolError, type FixedBy } from "./errors.js";
export type { AgentConfig, AgentEvent, ApprovalDecision, CacheTtl, Effort, EventSink, Inbox, JsonSchema, MessageParam, StopReason, SteerMessage, ThinkingSetting, ToolChoiceSetting, TurnResult, Usage, WebSettings } from "./types.js";
