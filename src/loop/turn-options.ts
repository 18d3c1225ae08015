// What a caller may pass to one turn: per-turn settings only (what belongs to every turn lives in the runtime), checked by zod; and its lifecycle hooks.
import type Anthropic from "@anthropic-ai/sdk";
import * as z from "zod";
import type { Approver } from "../deps.js";
import { ConfigError, messageOf } from "../errors.js";
import { checkConfig } from "../fs/config-file.js";
import type { ModeHolder, PermissionMode } from "../gate/context.js";
import { parseEffort, parseMaxIterations, parseThinking, parseToolChoice } from "../model/settings.js";
import { fn, isTool, modeSchema, objectOf, RUNTIME_OPTION_NAMES, settingOf } from "../runtime/runtime-options.js";
import { isRuntime, type Runtime, type RuntimeOptions } from "../runtime/open-runtime.js";
import type { AnyTool } from "../tools/define.js";
import type { ToolHooks } from "../tools/dispatch.js";
import type { AgentConfig, CacheTtl, ContentBlockParam, Effort, EventSink, Inbox, JsonSchema, ThinkingSetting, ToolChoiceSetting, TurnResult } from "../types.js";

/** What a caller may pass to `runAgentTurn`; every field has a default. `T` is the type of `output`. */
export interface TurnOptions<T = unknown> {
  /** A runtime from `openRuntime`, shared by many turns; or its options, to open one for this turn alone. */
  runtime?: Runtime | RuntimeOptions;
  /** Shorthand for `runtime: { workspace }`: the workspace folder. Default `./workspace`. */
  workspace?: string;
  /** Shorthand for `runtime: { client }`: the Anthropic client. Default built from the environment. */
  client?: Anthropic;
  /** Model when the agent names none; default the runtime's, MINICLAW_MODEL, or the newest Sonnet. */
  model?: string;
  /** Overrides the agent's `fallback_model`: the model the turn moves to when its own stays overloaded or unavailable. */
  fallbackModel?: string;
  /** Output tokens per request; default the agent's `max_tokens`, else 8192 (plus the thinking budget when one is set). */
  maxTokens?: number;
  /** Overrides the agent's `thinking`: `adaptive`, `off`, or a budget in tokens (at least 1,024). */
  thinking?: ThinkingSetting;
  /** Overrides the agent's `effort`. */
  effort?: Effort;
  /** How long the prompt cache keeps what this turn sends (see CacheTtl); default `5m`. The REPL and a cron job run more than five minutes apart ask `1h`. */
  cacheTtl?: CacheTtl;
  /** Overrides the agent's `tool_choice` (first request of the turn only). */
  toolChoice?: ToolChoiceSetting;
  /** A structured final answer: a zod schema (`output` is typed from it) or a JSON Schema; an invalid one is sent back up to `outputRetries` times, then `output_invalid`. */
  output?: z.ZodType<T> | JsonSchema;
  /** Corrections asked for after an invalid structured answer (default 2). */
  outputRetries?: number;
  /** Model requests before the turn stops with `max_iterations`; default the agent's, else 20. */
  maxIterations?: number;
  /** Stops the turn once its estimated cost passes this many dollars. */
  maxBudgetUsd?: number;
  /** Stops the turn once its output tokens pass this number. */
  maxOutputTokens?: number;
  /** Tool hooks and lifecycle hooks (see TurnHooks). */
  hooks?: TurnHooks;
  signal?: AbortSignal;
  /** Receives events synchronously, in order; must not throw. */
  onEvent?: EventSink;
  /** Tools for this turn only, beside the runtime's (a same-named tool replaces the other). */
  tools?: AnyTool[];
  /** Who answers approval requests this turn; default the runtime's. */
  approver?: Approver;
  /** The mode of this turn, or a holder whose mode may change during it; default the runtime's. */
  permissionMode?: PermissionMode | ModeHolder;
  /** Steering: messages the user adds while the turn runs, joining the next request ("The user added: …"); one left when the model answered starts a follow-up. */
  inbox?: Inbox;
}

const schema = z.strictObject({
  runtime: objectOf("a runtime from openRuntime, or its options").optional(),
  workspace: z.string().min(1).optional(),
  client: objectOf("an Anthropic client (from createClient, or the SDK)").optional(),
  model: z.string().min(1).optional(),
  fallbackModel: z.string().min(1).optional(),
  maxTokens: z.number().int().positive().optional(),
  thinking: settingOf(parseThinking).optional(),
  effort: settingOf(parseEffort).optional(),
  toolChoice: z.union([z.string(), z.strictObject({ tool: z.string().min(1) })]).refine((v) => typeof v !== "string" || parseToolChoice(v).ok, 'must be "auto", "any", "none" or { tool }').optional(),
  cacheTtl: z.enum(["5m", "1h", "auto"], { error: 'must be "5m", "1h" or "auto"' }).optional(),
  output: objectOf("a zod schema or a JSON Schema object").optional(),
  outputRetries: z.number().int().nonnegative().optional(),
  maxIterations: settingOf(parseMaxIterations).optional(),
  maxBudgetUsd: z.number().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  hooks: objectOf("an object of hooks").optional(),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, "must be an AbortSignal (abortController.signal)").optional(),
  onEvent: fn.optional(),
  tools: z.array(z.custom<AnyTool>(isTool, "must be tools made with defineTool (a raw API tool or a JSON Schema input is not one)")).optional(),
  approver: fn.optional(),
  permissionMode: modeSchema.optional(),
  inbox: z.custom<Inbox>((v) => typeof (v as Inbox | null)?.take === "function", "must be an inbox ({ take() })").optional(),
});

/** Names the Agent SDK and others use, and what they are called or where they live here. */
const ALIASES: Record<string, string> = {
  maxTurns: "maxIterations",
  abortController: "pass its signal as signal",
  allowedTools: "list the tools in the agent's tools (SOUL.md tools:, AgentConfig.tools)",
  disallowedTools: "put them on the denied list of exec-approvals.json",
  systemPrompt: "the agent's prompt is the system prompt: pass { ...agent, prompt }",
  appendSystemPrompt: "pass { ...agent, prompt: agent.prompt + text }",
  canUseTool: "approver answers approval requests",
  ...Object.fromEntries(RUNTIME_OPTION_NAMES.filter((name) => !(name in schema.shape)).map((name) => [name, `a runtime option: pass runtime: { ${name} } or open one with openRuntime`])),
};

/** Throws a one-line ConfigError naming the field and the fix when an argument of a turn (an option too, or an unknown name) is not what it takes. */
export function checkTurnArguments(sessionKey: unknown, userText: unknown, agent: unknown, options: unknown): void {
  if (typeof sessionKey !== "string" || sessionKey.trim() === "") throw new ConfigError(`runAgentTurn: sessionKey must be a non-empty string such as "agent:main:main", got ${shown(sessionKey)}`);
  const blocks = Array.isArray(userText) && userText.length > 0 && userText.every((b) => typeof (b as { type?: unknown } | null)?.type === "string");
  if (typeof userText !== "string" && !blocks) throw new ConfigError(`runAgentTurn: userText must be a string or content blocks ([{ type: "image", ... }, { type: "text", ... }]), got ${shown(userText)}`);
  if (typeof userText === "string" && userText.trim() === "") throw new ConfigError("runAgentTurn: userText is empty: give the message the model should answer");
  const a = agent as Partial<AgentConfig> | null | undefined;
  if (typeof a !== "object" || a === null || typeof a.id !== "string" || typeof a.prompt !== "string") {
    throw new ConfigError(`runAgentTurn: agent must be an AgentConfig ({ id, name, prompt }), as loadAgents returns, got ${shown(agent)}`);
  }
  if (typeof options !== "object" || options === null) throw new ConfigError(`runAgentTurn: options must be an object, got ${shown(options)}`);
  checkConfig(schema, options, "runAgentTurn options", ALIASES);
  const { runtime } = options as TurnOptions;
  if (runtime !== undefined && isRuntime(runtime) && ("workspace" in options || "client" in options)) {
    throw new ConfigError("runAgentTurn options: workspace and client are set by the runtime given; leave them out");
  }
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  return typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : typeof value;
}

/** What a turn's start hook may add: text given to the model with the user's message (not in the system prompt). */
export interface TurnStartAddition {
  context?: string;
  /** Content blocks sent with the user's message: images and documents (the REPL's `@path` of an image or a PDF). */
  blocks?: ContentBlockParam[];
}

/** Hooks of a turn. A tool hook that throws denies the call; a lifecycle hook that throws is a `warning` event, and the turn goes on without it. */
export interface TurnHooks extends ToolHooks {
  /** Before the user's message is stored; may add context to it. */
  onTurnStart?(info: { sessionKey: string; agentId: string; text: string }): TurnStartAddition | void | Promise<TurnStartAddition | void>;
  /** Before a compaction summarises the older part of the session. */
  onBeforeCompact?(info: { sessionKey: string; agentId: string; tokensBefore: number; reason: string }): void | Promise<void>;
  /** After the turn ended, with its result. */
  onTurnEnd?(result: TurnResult): void | Promise<void>;
  /** When a delegate call starts a subagent, and when it ends. */
  onSubagentStart?(info: { toolUseId: string; agentId: string; sessionKey: string; task: string }): void | Promise<void>;
  onSubagentEnd?(info: { toolUseId: string; agentId: string; result: TurnResult }): void | Promise<void>;
}

/** Runs one lifecycle hook; a throw or rejection becomes a warning and `undefined`. */
export async function runHook<T>(name: string, hook: (() => T | Promise<T>) | undefined, emit: EventSink): Promise<T | undefined> {
  return hook && Promise.resolve().then(hook).catch((error: unknown) => {
    emit({ type: "warning", message: `the ${name} hook failed (${messageOf(error)}); the turn goes on without it` });
    return undefined;
  });
}
