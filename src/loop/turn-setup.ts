// One turn's settings resolved over its runtime: the model settings, the limits, the gate, the tools of the first request.
import type Anthropic from "@anthropic-ai/sdk";
import { safeSink, type Approver } from "../deps.js";
import { ConfigError } from "../errors.js";
import type { Gate, ModeHolder } from "../gate/context.js";
import { pickModel } from "../model/client.js";
import { checkSettings } from "../model/settings.js";
import { modesOf, type Runtime } from "../runtime/open-runtime.js";
import { buildSystemPrompt } from "../runtime/system-prompt.js";
import { COMPACT_AT_SHARE_OF_WINDOW } from "../sessions/compaction.js";
import { contextWindowFor } from "../sessions/tokens.js";
import type { AnyTool } from "../tools/define.js";
import { isOffered } from "../tools/source.js";
import type { AgentConfig, Effort, EventSink, Inbox, StopReason, ThinkingSetting, ToolChoiceSetting, Usage, WebSettings } from "../types.js";
import type { TurnHooks } from "./hooks.js";
import { limiter } from "./limiter.js";
import { createOutputFormat, type OutputFormat } from "./output.js";
import type { TurnOptions } from "./turn-options.js";

export const DEFAULT_MAX_ITERATIONS = 20;
/** Corrections asked for after an invalid structured answer. */
export const DEFAULT_OUTPUT_RETRIES = 2;
export const DEFAULT_MAX_TOKENS = 8192;
/** Ceiling for the one retry after a tool_use was cut off by max_tokens. */
export const MAX_TOKENS_CEILING = 32_000;

/** A parent turn's brakes as a subagent's turn counts against them (see TurnState.shareBrakes). */
export interface SharedBrakes {
  request(): void;
  cost(usage: Usage, costUsd: number): void;
  /** The parent's limit reached, as a stop reason and a line, or undefined. */
  spent(): [StopReason, string] | undefined;
}

/** How a subagent's turn hangs off its parent: the parent's session and call, and the parent's brakes. */
export interface ParentLink {
  parent: { sessionKey: string; toolUseId: string };
  shared: SharedBrakes;
}

/** Everything one turn runs with, resolved once before it starts. */
export interface TurnSetup {
  runtime: Runtime;
  agent: AgentConfig;
  client: Anthropic;
  model: string;
  /** The turn's `model` option (a fallback for agents that name none), which its subagents share. */
  modelOption: string | undefined;
  maxTokens: number;
  thinking: ThinkingSetting | undefined;
  effort: Effort | undefined;
  toolChoice: ToolChoiceSetting | undefined;
  /** The web server tools offered, after the agent's tool list and the denied list. */
  web: WebSettings | undefined;
  output: OutputFormat | undefined;
  outputRetries: number;
  maxIterations: number;
  maxBudgetUsd: number;
  maxOutputTokens: number;
  hooks: TurnHooks | undefined;
  inbox: Inbox | undefined;
  signal: AbortSignal;
  emit: EventSink;
  /** The permission mode, read at each tool call: a REPL's /mode or exit_plan_mode changes it mid-turn. */
  modes: ModeHolder;
  /** Approval questions one at a time: read-only calls run together, a person answers one by one. */
  approver: Approver;
  gate: Gate;
  /** The turn's own tools, beside the runtime's. */
  extraTools: readonly AnyTool[];
  /** The tools of the first request (later requests ask the sources again). */
  firstTools: Map<string, AnyTool>;
  systemPrompt: string;
  contextWindow: number;
  compactAt: number;
  link: ParentLink | undefined;
}

/** Resolves a turn's settings. Throws ConfigError for a combination the API would refuse on every request. */
export async function setUpTurn(runtime: Runtime, agent: AgentConfig, options: TurnOptions, link?: ParentLink): Promise<TurnSetup> {
  const emit = safeSink(options.onEvent);
  const modes = options.permissionMode === undefined ? runtime.modes : modesOf(options.permissionMode);
  const approver = oneAtATime(options.approver ?? runtime.approver);
  const gate = runtime.gate({ emit, approver, modes });
  const model = pickModel(agent.model, options.model, runtime.settings.model);
  const settings = modelSettings(agent, options);
  const extraTools = options.tools ?? [];
  const firstTools = await runtime.tools({ agent, mode: modes.mode, offered: new Set() }, extraTools);
  const web = offeredWeb(agent, gate);
  checkToolNames(agent, firstTools, web, settings.toolChoice);
  const contextWindow = contextWindowFor(model);
  return {
    runtime,
    agent,
    client: runtime.client,
    model,
    modelOption: options.model,
    ...settings,
    web,
    output: options.output === undefined ? undefined : createOutputFormat(options.output),
    outputRetries: options.outputRetries ?? DEFAULT_OUTPUT_RETRIES,
    maxIterations: options.maxIterations ?? agent.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    maxBudgetUsd: options.maxBudgetUsd ?? Infinity,
    maxOutputTokens: options.maxOutputTokens ?? Infinity,
    hooks: options.hooks,
    inbox: options.inbox,
    signal: options.signal ?? new AbortController().signal,
    emit,
    modes,
    approver,
    gate,
    extraTools,
    firstTools,
    systemPrompt: buildSystemPrompt({ agent, userProfile: runtime.settings.userProfile, skillsListing: runtime.skillsListing, toolNames: [...firstTools.keys()], toolNotes: [...firstTools.values()].flatMap((tool) => tool.systemNote ?? []) }),
    contextWindow,
    compactAt: runtime.settings.compactAt ?? Math.floor(contextWindow * COMPACT_AT_SHARE_OF_WINDOW),
    link,
  };
}

/**
 * Thinking, effort, tool choice and max_tokens, options over the agent's frontmatter. Without a
 * max_tokens of its own, a thinking budget is added to the default, so the answer keeps its room.
 * Throws ConfigError naming the agent and the field when the combination would be refused.
 */
function modelSettings(agent: AgentConfig, options: TurnOptions): Pick<TurnSetup, "thinking" | "effort" | "toolChoice" | "maxTokens"> {
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
 * The agent's web server tools that its `tools:` list names (when it has one) and the approvals
 * file does not deny: they run at the provider, so leaving them out is the only gate there is.
 */
function offeredWeb(agent: AgentConfig, gate: Gate): WebSettings | undefined {
  const web: WebSettings = { ...agent.web };
  for (const [key, name] of [["search", "web_search"], ["fetch", "web_fetch"]] as const) {
    if (web[key] && (!isOffered(name, { agent }) || gate.deniesTool(name))) delete web[key];
  }
  return web.search || web.fetch ? web : undefined;
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

/** Read-only calls run concurrently, so approval questions are queued: a person answers one at a time. */
function oneAtATime(approver: Approver): Approver {
  const one = limiter(1);
  return (request) => one(() => approver(request));
}
