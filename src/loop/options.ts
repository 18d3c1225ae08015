// Every default of a turn in one place: the runtime a turn runs with, resolved from its options.
import { join, resolve } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { nodeSpawnDefault, refuseApprover, safeSink, systemClock, type Approver, type Clock, type Spawn } from "../deps.js";
import { createClient, pickModel, type Env } from "../model/client.js";
import type { PermissionContext, PermissionMode } from "../permissions/context.js";
import { SessionStore, type SessionStorage } from "../sessions/store.js";
import { COMPACT_AT_SHARE_OF_WINDOW } from "../sessions/compaction.js";
import { contextWindowFor } from "../sessions/tokens.js";
import { ConfigError } from "../errors.js";
import { MemoryStore } from "../memory/store.js";
import { BUNDLED_SKILLS } from "../paths.js";
import { buildSystemPrompt, readUserProfile } from "./system-prompt.js";
import { SkillLoader } from "../skills/loader.js";
import { createPermissionContext } from "../permissions/gate.js";
import { createFileTools } from "../tools/files.js";
import { createLoadSkillTool } from "../tools/load-skill.js";
import { createRunCommandTool } from "../tools/run-command.js";
import { isSecretVariable, scrubEnv, secretValues } from "../tools/child-env.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import { createMemoryTools } from "../tools/memory.js";
import type { AnyTool } from "../tools/define.js";
import type { ToolHooks } from "../tools/dispatch.js";
import { McpHub } from "../mcp/hub.js";
import { parseMcpConfig, type McpServersConfig } from "../mcp/config.js";
import { checkSettings } from "../model/settings.js";
import { createOutputFormat, type OutputFormat } from "./output.js";
import type { ZodType } from "zod";
import type { AgentConfig, Effort, EventSink, ThinkingSetting, ToolChoiceSetting, WebSettings } from "../types.js";

export const DEFAULT_MAX_ITERATIONS = 20;
/** Corrections asked for after an invalid structured answer. */
export const DEFAULT_OUTPUT_RETRIES = 2;
/** The approvals file inside the workspace. */
export const APPROVALS_FILE = "exec-approvals.json";
export const DEFAULT_MAX_TOKENS = 8192;
/** Ceiling for the one retry after a tool_use was cut off by max_tokens. */
export const MAX_TOKENS_CEILING = 32_000;

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
  permissionMode?: PermissionMode;
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
  hooks?: ToolHooks;
  signal?: AbortSignal;
  /** Receives events synchronously, in order; must not throw. */
  onEvent?: EventSink;
  clock?: Clock;
  spawn?: Spawn;
  store?: SessionStorage;
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
  permissionMode: PermissionMode;
  permissions: PermissionContext;
  tools: Map<string, AnyTool>;
  hooks: ToolHooks | undefined;
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
  const permissionMode = options.permissionMode ?? "default";
  const approver = oneAtATime(options.approver ?? refuseApprover);
  const model = pickModel(agent.model, options.model, env["MINICLAW_MODEL"]);
  const client = options.client ?? createClientFromEnv(env);
  // Settings a person must fix are refused before anything is opened or started.
  const settings = modelSettings(agent, options);
  const output = options.output === undefined ? undefined : createOutputFormat(options.output);
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
      mode: permissionMode,
      approver,
      approvalsPath: join(workspace, APPROVALS_FILE),
      roots: [cwd, workspace],
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
    permissionMode,
    permissions,
    tools,
    hooks: options.hooks,
    signal: options.signal ?? new AbortController().signal,
    emit,
    clock: options.clock ?? systemClock,
    spawn: options.spawn ?? nodeSpawnDefault,
    store: options.store ?? new SessionStore(resolve(workspace, "sessions")),
    systemPrompt:
      options.systemPrompt ??
      buildSystemPrompt({
        agent,
        userProfile: options.userProfile ?? (await readUserProfile(workspace)),
        skillsListing: skills?.listing(),
        toolNames: [...tools.keys()],
      }),
    ownedMemory: options.memory === undefined ? memory : undefined,
    mcp,
    ownedMcp: mcp !== undefined && !(options.mcpServers instanceof McpHub),
    allowedTools: allowed,
    maxIterations: options.maxIterations ?? DEFAULT_MAX_ITERATIONS,
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

/**
 * Refuses, before any request, what every request of the turn would be refused for: a tool
 * choice naming a tool the turn does not offer, or a tool of the turn named like a web server tool it offers.
 */
function checkToolNames(agent: AgentConfig, tools: ReadonlyMap<string, AnyTool>, web: WebSettings | undefined, toolChoice: ToolChoiceSetting | undefined): void {
  const serverTools = [...(web?.search ? ["web_search"] : []), ...(web?.fetch ? ["web_fetch"] : [])];
  const twice = serverTools.find((name) => tools.has(name));
  if (twice) {
    const why = `a tool named "${twice}" is given while its SOUL.md "web" offers the server tool of that name`;
    throw new ConfigError(`agent "${agent.id}": ${why}: rename the tool, or turn that part of web off`);
  }
  if (typeof toolChoice !== "object" || tools.has(toolChoice.tool) || serverTools.includes(toolChoice.tool)) return;
  const offered = [...tools.keys(), ...serverTools].join(", ") || "none";
  throw new ConfigError(`agent "${agent.id}": "tool_choice" names the tool "${toolChoice.tool}", which this turn does not offer (offered: ${offered})`);
}

/**
 * The agent's web server tools that its `tools:` list names (when it has one) and the approvals
 * file does not deny: they run at the provider, so leaving them out is the only gate there is.
 */
async function offeredWeb(agent: AgentConfig, permissions: PermissionContext): Promise<WebSettings | undefined> {
  const web: WebSettings = { ...agent.web };
  for (const [key, name] of [["search", "web_search"], ["fetch", "web_fetch"]] as const) {
    if (!web[key]) continue;
    const listed = agent.tools === undefined || isAllowedTool(name, agent.tools);
    if (!listed || (await permissions.deniesTool?.(name))) delete web[key];
  }
  return web.search || web.fetch ? web : undefined;
}

/** A server config given for one turn is connected now (its failures are the turn's warnings); a hub is connected once. */
async function openMcp(servers: TurnOptions["mcpServers"], env: Env, emit: EventSink): Promise<McpHub | undefined> {
  if (servers === undefined) return undefined;
  const hub =
    servers instanceof McpHub
      ? servers
      : new McpHub(parseMcpConfig(servers, "the mcpServers option", env), { childEnv: scrubEnv(env), onWarning: (message) => emit({ type: "warning", message }) });
  await hub.connect();
  return hub;
}

/** Whether a `tools:` list names the tool: exactly, or by a glob such as `mcp__github__*`. */
export function isAllowedTool(name: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => entry === name || (/[*?]/.test(entry) && globMatches(entry, name)));
}

function globMatches(glob: string, name: string): boolean {
  const source = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/[*?]/g, (w) => (w === "*" ? ".*" : "."));
  return new RegExp(`^${source}$`).test(name);
}

/**
 * Takes in, between two requests, the tool lists MCP servers announced as changed
 * (`tools/list_changed`): their tools are replaced, through the agent's `tools:` list again.
 */
export async function refreshMcpTools(rt: TurnRuntime): Promise<void> {
  if (!rt.mcp || !(await rt.mcp.refresh())) return;
  for (const name of [...rt.tools.keys()]) if (name.startsWith("mcp__")) rt.tools.delete(name);
  for (const tool of rt.mcp.tools()) if (!rt.allowedTools || isAllowedTool(tool.name, rt.allowedTools)) rt.tools.set(tool.name, tool);
}

const builtinCache = new WeakMap<MemoryStore, { skills: SkillLoader; timeoutMs: number | undefined; tools: AnyTool[] }>();

/**
 * The tools every agent has unless its SOUL.md narrows them. Built once per memory
 * store and skill loader (a REPL or cron process reuses them: their schemas are
 * derived once, and the definitions stay byte-identical for the prompt cache).
 */
function builtinTools(memory: MemoryStore, skills: SkillLoader, timeoutMs: number | undefined): AnyTool[] {
  const cached = builtinCache.get(memory);
  if (cached && cached.skills === skills && cached.timeoutMs === timeoutMs) return cached.tools;
  const tools = [
    createRunCommandTool(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...createFileTools(),
    ...createMemoryTools(memory),
    createLoadSkillTool(skills),
  ];
  builtinCache.set(memory, { skills, timeoutMs, tools });
  return tools;
}

async function loadSkills(workspace: string): Promise<SkillLoader> {
  const loader = new SkillLoader({ dirs: [BUNDLED_SKILLS, join(workspace, "skills")] });
  await loader.load();
  return loader;
}

/** Read-only calls run concurrently, so approval questions are queued: a person answers one at a time. */
function oneAtATime(approver: Approver): Approver {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const answer = queue.then(() => approver(request));
    queue = answer.catch(() => undefined);
    return answer;
  };
}

/**
 * The default client. When it was built from the process's own environment, the secrets are then
 * blanked in the environment block the process started with, which its commands could otherwise read
 * as /proc/<our pid>/environ (process.env keeps them).
 */
function createClientFromEnv(env: Env): Anthropic {
  const client = createClient({ env });
  if (env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  return client;
}

/** MINICLAW_COMPACT_AT in tokens; a bad value is a ConfigError, not a silent default. */
function compactAtFromEnv(env: Env): number | undefined {
  const raw = env["MINICLAW_COMPACT_AT"];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`MINICLAW_COMPACT_AT must be a positive whole number of tokens, got "${raw}"`);
  return value;
}
