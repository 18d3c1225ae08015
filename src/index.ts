// The public API of miniclaw: named re-exports only.
export { runAgentTurn } from "./loop/run-turn.js";
export type { TurnOptions } from "./loop/options.js";
export { compactSession, type CompactOutcome } from "./loop/compact.js";
export { buildRequest } from "./loop/request.js";

export { defineTool, type Tool, type AnyTool, type ToolContext, type ToolOutput, type ToolSpec } from "./tools/define.js";
export type { ToolHooks, ToolCall, BeforeToolUseResult } from "./tools/dispatch.js";
export { createMemoryTools } from "./tools/memory.js";
export { createRunCommandTool, type RunCommandOptions } from "./tools/run-command.js";
export { scrubEnv, isSecretVariable } from "./tools/child-env.js";
export { createFileTools } from "./tools/files.js";
export { createLoadSkillTool } from "./tools/load-skill.js";

export { checkCommandSafety } from "./permissions/safety.js";
export { createPermissionContext, type PermissionContextOptions } from "./permissions/gate.js";
export { readApprovals, addApprovals } from "./permissions/approvals-file.js";
export type { PermissionContext, PermissionMode, GateAnswer, PathAnswer } from "./permissions/context.js";

export { SessionStore, type SessionStorage, type LoadedSession, type LoadOptions, type SessionListing } from "./sessions/store.js";
export { planCompaction, type CompactionPlan } from "./sessions/compaction.js";
export { contextSize, contextWindowFor, estimateTokens } from "./sessions/tokens.js";
export type { SessionRecord, MessageRecord, CompactionRecord, HeaderRecord } from "./sessions/records.js";
export { SkillLoader } from "./skills/loader.js";
export { MemoryStore } from "./memory/store.js";

export { loadAgents } from "./runtime/agents.js";
export { resolveAgent } from "./runtime/routing.js";
export { buildSystemPrompt } from "./loop/system-prompt.js";
export { openAssistant, type Assistant, type AssistantOptions, type SendOptions } from "./runtime/assistant.js";
export { ensureWorkspace } from "./runtime/workspace.js";
export { startScheduler, type Scheduler } from "./runtime/cron.js";
export { loadCronJobs, type CronJob } from "./runtime/cron-config.js";
export { createJobRunner } from "./runtime/cron-job.js";
export { interpretHeartbeatReply, hasHeartbeatContent } from "./runtime/heartbeat.js";

export { createClient, DEFAULT_MODEL, MISSING_CREDENTIALS_MESSAGE } from "./model/client.js";
export { hideSecretsFromProcEnviron, type EnvironHiding } from "./model/environ-hiding.js";
export { estimateCostUsd, summarizeUsage } from "./model/usage.js";
export { refuseApprover, systemClock, type Approver, type ApprovalRequest, type Clock, type Spawn } from "./deps.js";
export { MiniclawError, ConfigError, SessionError, ToolError } from "./errors.js";
export type { AgentConfig, AgentEvent, ApprovalDecision, EventSink, MessageParam, StopReason, TurnResult, Usage } from "./types.js";
