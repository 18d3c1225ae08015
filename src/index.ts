// The public API of miniclaw: what a library user builds with, as named re-exports. Internals are not exported:
// every export is a promise kept across versions.

// The turn and its tools.
export { runAgentTurn } from "./loop/run-turn.js";
export type { TurnOptions, JsonSchema } from "./loop/options.js";
export { defineTool, type Tool, type AnyTool, type ToolContext, type ToolOutput, type ToolSpec, type NeedsApproval, type PermissionRule, type Grant } from "./tools/define.js";
export type { ToolHooks, ToolCall, BeforeToolUseResult } from "./tools/dispatch.js";

// MCP servers: their tools join a turn's through the mcpServers option, or a hub shared by many turns.
export { McpHub, connectMcpServers, type ConnectMcpOptions, type McpHubOptions, type McpServerStatus } from "./mcp/hub.js";
export type { McpServersConfig, McpServerConfig, McpStdioConfig, McpHttpConfig, McpSdkConfig, McpServerCommon } from "./mcp/config.js";

// The gate.
export { checkCommandSafety } from "./shell/safety.js";
export type { PermissionContext, PermissionMode, GateAnswer, PathAnswer, ToolAnswer, ToolCallCheck } from "./gate/context.js";

// What a user constructs: stores, loaders, the workspace.
export { SessionStore, type SessionStorage, type SessionBackend, type LoadedSession, type LoadOptions, type SessionListing } from "./sessions/store.js";
export { openSessionBackend, type BackendOptions } from "./sessions/backend.js";
export { exportSession, importSession } from "./sessions/transfer.js";
export type { DatabaseConfig, DatabaseOption } from "./postgres/config.js";
export type { SessionRecord, MessageRecord, CompactionRecord, HeaderRecord, OutputRecord } from "./sessions/records.js";
export { SkillLoader } from "./skills/loader.js";
export { MemoryStore } from "./memory/store.js";
export { ensureWorkspace } from "./runtime/workspace.js";

// Agents, the assistant the REPL is built on, and cron.
export { loadAgents } from "./runtime/agents.js";
export { resolveAgent } from "./runtime/routing.js";
export { openAssistant, type Assistant, type AssistantOptions, type SendOptions } from "./runtime/assistant.js";
export { startScheduler, type Scheduler, type SchedulerOptions } from "./cron/cron.js";
export { openDatabaseScheduler, type OpenDatabaseSchedulerOptions } from "./postgres/database-scheduler.js";
export { loadCronJobs, type CronJob } from "./cron/cron-config.js";

// The model: the client, and what a turn cost.
export { createClient, DEFAULT_MODEL } from "./model/client.js";
export { estimateCostUsd, summarizeUsage } from "./model/usage.js";

// Injected effects and errors.
export type { Approver, ApprovalRequest, Clock, Spawn } from "./deps.js";
export { MiniclawError, ConfigError, SessionError, ToolError, type FixedBy } from "./errors.js";
export type { AgentConfig, AgentEvent, ApprovalDecision, Effort, EventSink, MessageParam, StopReason, ThinkingSetting, ToolChoiceSetting, TurnResult, Usage, WebSettings } from "./types.js";
