// Every default of a turn in one place: the runtime a turn runs with, resolved from its options.
import { join, resolve } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { nodeSpawnDefault, refuseApprover, safeSink, systemClock, type Approver, type Clock, type Spawn } from "../deps.js";
import { createClient, pickModel, type Env } from "../model/client.js";
import { readCredentials } from "../model/credentials.js";
import type { PermissionContext, PermissionMode } from "../gate/context.js";
import type { SessionStorage } from "../sessions/store.js";
import { openSessionBackend } from "../sessions/backend.js";
import type { DatabaseOption } from "../postgres/config.js";
import { COMPACT_AT_SHARE_OF_WINDOW } from "../sessions/compaction.js";
import { contextWindowFor } from "../sessions/tokens.js";
import { ConfigError } from "../errors.js";
import { MemoryStore } from "../memory/store.js";
import { BUNDLED_SKILLS } from "../paths.js";
import { buildSystemPrompt, readUserProfile } from "./system-prompt.js";
import { SkillLoader } from "../skills/loader.js";
import { createPermissionContext } from "../gate/gate.js";
import { isSecretVariable, scrubEnv, secretValues } from "../gate/secret-env.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import type { AnyTool } from "../tools/define.js";
import type { TurnHooks } from "./hooks.js";
import { McpHub } from "../mcp/hub.js";
import type { McpServersConfig } from "../mcp/config.js";
import { builtinTools, checkToolNames, isAllowedTool, offeredWeb, openMcp } from "./turn-tools.js";
import { checkSettings } from "../model/settings.js";
import { createOutputFormat, type OutputFormat } from "./output.js";
import { limiter } from "./limiter.js";
import type { ZodType } from "zod";
import type { AgentConfig, Effort, EventSink, Inbox, StopReason, ThinkingSetting, ToolChoiceSetting, Usage, WebSettings } from "../types.js";

export const DEFAULT_MAX_ITERATIONS = 20;
/** Corrections asked for after an invalid structured answer. */
export const DEFAULT_OUTPUT_RETRIES = 2;
/** The approvals file inside the workspace. */
export const APPROVALS_FILE = "exec-approvals.json";
export const DEFAULT_MAX_TOKENS = 8192;
/** Ceiling for the one retry after a tool_use was cut off by max_tokens. */
export const MAX_TOKENS_CEILING = 32_000;

export type { Inbox, SteerMessage } from "../types.js";

/** A parent turn's brakes as a subagent's turn counts against them (see TurnState.shareBrakes). */
export interface SharedBrakes {
  request(): void;
  cost(usage: Usage, costUsd: number): void;
  /** The parent's limit reached, as a stop reason and a line, or undefined. */
  spent(): [StopReason, string] | undefined;
}

/** A permission mode that can change while a turn runs: the gate reads `mode` at each call. */
export interface ModeHolder {
  mode: PermissionMode;
}

/** A holder as given, or a new one over the mode given (default `default`). */
export function modeHolderOf(mode: PermissionMode | ModeHolder | undefined): ModeHolder {
  return typeof mode === "object" ? mode : { mode: mode ?? "default" };
}

/** A JSON Schema object (its root `type` must be `"object"`). */
export type JsonSchema = Record<string, unknown>;

/** What a caller may pass to `runAgentTurn`; every field has a default. `T` is the type of `output`. */
export interface TurnOptions<T = unknown> {
  /** Workspace folder (agents, sessions, memory, approvals). Default `./workspace`. */
  workspace?: string;
  /** Working directory of commands and relative paths. Default `process.cwd()`. */
  cwd?: string;
  /** Environment read for ANTHROPIC_* and MINICLAW_*; default `process.env`. */
  env?: Env;
  /** The Anthropic client; default built from `env`. */
  client?: Anthropic;
  /** Model when the agent names none; default `MINICLAW_MODEL` or the newest Sonnet. */
  model?: string;
  /** Output tokens per request; default the agent's `max_tokens`, else 8192 (plus the thinking budget when one is set). */
  maxTokens?: number;
  /** Overrides the agent's `thinking`: `adaptive`, `off`, or a budget in tokens. */
  thinking?: ThinkingSetting;
  /** Overrides the agent's `effort`. */
  effort?: Effort;
  /** Overrides the agent's `tool_choice` (first request of the turn only). */
  toolChoice?: ToolChoiceSetting;
  /**
   * Asks for a structured final answer: a zod schema (the result's `output` is typed from it)
   * or a JSON Schema object. The answer is validated; an invalid one is sent back to the model
   * with what was wrong, up to `outputRetries` times, then the turn ends with `output_invalid`.
   */
  output?: ZodType<T> | JsonSchema;
  /** Corrections asked for after an invalid structured answer (default 2). */
  outputRetries?: number;
  /** Who answers approval requests; default refuses (nobody is there to ask). */
  approver?: Approver;
  /** The mode, or a holder whose mode may change during the turn (the REPL's /mode, exit_plan_mode). */
  permissionMode?: PermissionMode | ModeHolder;
  /** A ready permission context; default built from mode, approver and workspace. */
  permissions?: PermissionContext;
  /** Extra tools, added to the built-ins (a same-named tool replaces the built-in). */
  tools?: AnyTool[];
  /**
   * MCP servers whose tools join the turn's (as `mcp__<server>__<tool>`): the `mcpServers` object of
   * an mcp.json (connected for this turn and stopped at its end), or a hub made with
   * `connectMcpServers`, which stays connected across turns.
   */
  mcpServers?: McpServersConfig | McpHub;
  /** Timeout of run_command, in milliseconds (default 30 s). */
  commandTimeoutMs?: number;
  /** Set false to offer only `tools`. */
  builtinTools?: boolean;
  /** Tool hooks and lifecycle hooks (see TurnHooks). */
  hooks?: TurnHooks;
  /**
   * Steering: messages the user adds while the turn runs. Drained before each model request;
   * each joins the next request after that round's tool results ("The user added: …").
   * A message still waiting when the model has answered starts a follow-up in the same turn.
   */
  inbox?: Inbox;
  /** The other agents of the workspace, for the `delegate` tool of an agent with `delegates`. */
  agents?: Readonly<Record<string, AgentConfig>>;
  /** Delegate calls of one response run together, at most this many at a time (default 4). */
  maxConcurrentDelegates?: number;
  /** Set by the delegate tool on a subagent's turn: the parent session and call, named in the child session's header. */
  parent?: { sessionKey: string; toolUseId: string };
  /** Set by the delegate tool: the parent turn's brakes, which the subagent's requests and costs count against. */
  sharedBrakes?: SharedBrakes;
  signal?: AbortSignal;
  /** Receives events synchronously, in order; must not throw. */
  onEvent?: EventSink;
  clock?: Clock;
  spawn?: Spawn;
  /** Where the session lives; default `openSessionBackend` (PostgreSQL when `database` or MINICLAW_DATABASE_URL names one, else `workspace/sessions/`). */
  store?: SessionStorage;
  /** Sessions on PostgreSQL: a URL or `{ url, schema?, poolSize?, turnConnections? }` (over MINICLAW_DATABASE_URL of `env`); ignored when `store` is given. */
  database?: DatabaseOption;
  /** Skills offered through load_skill; default the bundled ones and `workspace/skills/`, loaded now. */
  skills?: SkillLoader;
  /** Long-term memory; default `workspace/memory/`. */
  memory?: MemoryStore;
  /** The text of USER.md; default read from the workspace. */
  userProfile?: string;
  /** Replaces the assembled system prompt. */
  systemPrompt?: string;
  maxIterations?: number;
  /** Stops the turn once its estimated cost passes this many dollars. */
  maxBudgetUsd?: number;
  /** Stops the turn once its output tokens pass this number. */
  maxOutputTokens?: number;
  /** Adds the current time to the user message (not to the system prompt, which must stay byte-stable). */
  includeTime?: boolean;
  /** Compact before a request whose context passes this many tokens; default 80% of the window, or MINICLAW_COMPACT_AT. */
  compactAt?: number;
  /** Base delay of the loop's own retry of a broken stream. */
  streamRetryBaseMs?: number;
  /** Silence after which a started stream counts as broken (default: the client's timeout, at most 120 s). */
  streamIdleTimeoutMs?: number;
}

/** The resolved runtime of one turn. */
export interface TurnRuntime {
  agentId: string;
  workspace: string;
  cwd: string;
  env: Env;
  /** Environment of child processes: `env` without secrets. */
  childEnv: Env;
  /** Secret values of `env`, redacted from every tool result. */
  secrets: string[];
  client: Anthropic;
  model: string;
  maxTokens: number;
  thinking: ThinkingSetting | undefined;
  effort: Effort | undefined;
  toolChoice: ToolChoiceSetting | undefined;
  /** The web server tools offered, after the agent's tool list and the denied list. */
  web: WebSettings | undefined;
  output: OutputFormat | undefined;
  outputRetries: number;
  approver: Approver;
  /** The permission mode, read at each tool call: a REPL's /mode or exit_plan_mode changes it mid-turn. */
  modes: ModeHolder;
  permissions: PermissionContext;
  tools: Map<string, AnyTool>;
  hooks: TurnHooks | undefined;
  inbox: Inbox | undefined;
  /** A subagent's parent brakes (see SharedBrakes). */
  shared: SharedBrakes | undefined;
  signal: AbortSignal;
  emit: EventSink;
  clock: Clock;
  spawn: Spawn;
  store: SessionStorage;
  systemPrompt: string;
  /** Set when this turn opened the memory store itself (closed at the end of the turn). */
  ownedMemory: MemoryStore | undefined;
  /** The MCP servers of the turn, and whether the turn started them itself (then it stops them at its end). */
  mcp: McpHub | undefined;
  ownedMcp: boolean;
  /** The agent's `tools:` list, which MCP tools are filtered through again when a server's list changes. */
  allowedTools: readonly string[] | undefined;
  maxIterations: number;
  maxBudgetUsd: number;
  maxOutputTokens: number;
  includeTime: boolean;
  streamRetryBaseMs: number | undefined;
  streamIdleTimeoutMs: number | undefined;
  compactAt: number;
  contextWindow: number;
}

/** Resolves every default. Throws ConfigError when no client is given and no credentials are set. */
export async function resolveTurnOptions(agent: AgentConfig, options: TurnOptions): Promise<TurnRuntime> {
  const env = options.env ?? process.env;
  const workspace = resolve(options.workspace ?? "workspace");
  const cwd = resolve(options.cwd ?? process.cwd());
  const emit = safeSink(options.onEvent);
  const modes = modeHolderOf(options.permissionMode);
  const approver = oneAtATime(options.approver ?? refuseApprover);
  const model = pickModel(agent.model, options.model, env["MINICLAW_MODEL"]);
  const client = options.client ?? createClientFromEnv(env);
  // Settings a person must fix are refused before anything is opened or started.
  const settings = modelSettings(agent, options);
  const output = options.output === undefined ? undefined : createOutputFormat(options.output);
  // Before memory and MCP servers are opened: a database that cannot be used leaves nothing running.
  // The process keeps the backend it opens for its turns (a database stays open for the next turn): nothing to close here.
  const store = options.store ?? (await openSessionBackend({ sessionsDir: resolve(workspace, "sessions"), database: options.database, env, clock: options.clock, forTurns: true }));
  const builtins = options.builtinTools !== false;
  const memory = builtins ? (options.memory ?? MemoryStore.forWorkspace(workspace)) : undefined;
  const skills = builtins ? (options.skills ?? (await loadSkills(workspace))) : undefined;
  const tools = new Map<string, AnyTool>();
  if (memory && skills) for (const tool of builtinTools(memory, skills, options.commandTimeoutMs)) tools.set(tool.name, tool);
  const mcp = await openMcp(options.mcpServers, env, emit);
  for (const tool of mcp?.tools() ?? []) tools.set(tool.name, tool);
  for (const tool of options.tools ?? []) tools.set(tool.name, tool);
  const allowed = agent.tools;
  if (allowed) for (const name of [...tools.keys()]) if (!isAllowedTool(name, allowed)) tools.delete(name);
  const permissions =
    options.permissions ??
    createPermissionContext({
      mode: modes,
      approver,
      approvalsPath: join(workspace, APPROVALS_FILE),
      roots: [cwd, workspace],
      protectedDirs: [join(workspace, "sessions")],
      cwd,
      ...(env["HOME"] ? { home: env["HOME"] } : {}),
      emit,
    });
  const web = await offeredWeb(agent, permissions);
  try {
    checkToolNames(agent, tools, web, settings.toolChoice);
  } catch (error) {
    if (options.memory === undefined) memory?.close();
    if (!(options.mcpServers instanceof McpHub)) await mcp?.close();
    throw error;
  }
  return {
    agentId: agent.id,
    ...settings,
    web,
    output,
    outputRetries: options.outputRetries ?? DEFAULT_OUTPUT_RETRIES,
    workspace,
    cwd,
    env,
    childEnv: scrubEnv(env),
    secrets: secretValues(env),
    client,
    model,
    approver,
    modes,
    permissions,
    tools,
    hooks: options.hooks,
    inbox: options.inbox,
    shared: options.sharedBrakes,
    signal: options.signal ?? new AbortController().signal,
    emit,
    clock: options.clock ?? systemClock,
    spawn: options.spawn ?? nodeSpawnDefault,
    store,
    systemPrompt:
      options.systemPrompt ??
      buildSystemPrompt({
        agent,
        userProfile: options.userProfile ?? readUserProfile(workspace),
        skillsListing: skills?.listing(),
        toolNames: [...tools.keys()],
      }),
    ownedMemory: options.memory === undefined ? memory : undefined,
    mcp,
    ownedMcp: mcp !== undefined && !(options.mcpServers instanceof McpHub),
    allowedTools: allowed,
    maxIterations: options.maxIterations ?? agent.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    maxBudgetUsd: options.maxBudgetUsd ?? Infinity,
    maxOutputTokens: options.maxOutputTokens ?? Infinity,
    includeTime: options.includeTime ?? true,
    streamRetryBaseMs: options.streamRetryBaseMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    contextWindow: contextWindowFor(model),
    compactAt: options.compactAt ?? compactAtFromEnv(env) ?? Math.floor(contextWindowFor(model) * COMPACT_AT_SHARE_OF_WINDOW),
  };
}

/**
 * Thinking, effort, tool choice and max_tokens, options over the agent's frontmatter. Without a
 * max_tokens of its own, a thinking budget is added to the default, so the answer keeps its room.
 * Throws ConfigError naming the agent and the field when the combination would be refused.
 */
function modelSettings(agent: AgentConfig, options: TurnOptions): Pick<TurnRuntime, "thinking" | "effort" | "toolChoice" | "maxTokens"> {
  const thinking = options.thinking ?? agent.thinking;
  const toolChoice = options.toolChoice ?? agent.toolChoice;
  const budget = typeof thinking === "number" ? thinking : 0;
  const maxTokens = options.maxTokens ?? agent.maxTokens ?? DEFAULT_MAX_TOKENS + budget;
  const clash = checkSettings({ maxTokens, ...(thinking !== undefined && { thinking }), ...(toolChoice !== undefined && { toolChoice }) });
  if (clash) {
    const [field, problem] = clash;
    const given = field === "thinking" ? options.thinking !== undefined : options.toolChoice !== undefined;
    const where = given ? `the turn's ${field} setting (an option or flag)` : `"${field}" (SOUL.md)`;
    throw new ConfigError(`agent "${agent.id}": ${where} ${problem}`);
  }
  return { thinking, effort: options.effort ?? agent.effort, toolChoice, maxTokens };
}

async function loadSkills(workspace: string): Promise<SkillLoader> {
  const loader = new SkillLoader({ dirs: [BUNDLED_SKILLS, join(workspace, "skills")] });
  await loader.load();
  return loader;
}

/** Read-only calls run concurrently, so approval questions are queued: a person answers one at a time. */
function oneAtATime(approver: Approver): Approver {
  const one = limiter(1);
  return (request) => one(() => approver(request));
}

/** The default client of the last turn that built one, kept while the credentials it was built from stay the same. */
let defaultClient: { credentials: string; client: Anthropic } | undefined;

/**
 * The default client: the previous turn's when the environment names the same credentials (a
 * client holds no state of a turn, and building one costs each turn some 0.2 ms). Once one was
 * built from the process's own environment, the secrets are blanked in the environment block the
 * process started with, which its commands could otherwise read as /proc/<our pid>/environ
 * (process.env keeps them).
 */
function createClientFromEnv(env: Env): Anthropic {
  const credentials = JSON.stringify(readCredentials(env));
  if (defaultClient?.credentials !== credentials) defaultClient = { credentials, client: createClient({ env }) };
  if (env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  return defaultClient.client;
}

/** MINICLAW_COMPACT_AT in tokens; a bad value is a ConfigError, not a silent default. */
function compactAtFromEnv(env: Env): number | undefined {
  const raw = env["MINICLAW_COMPACT_AT"];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`MINICLAW_COMPACT_AT must be a positive whole number of tokens, got "${raw}"`);
  return value;
}
