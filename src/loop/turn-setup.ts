// One turn's settings resolved over its runtime, the small pieces the loop builds from them, and the move to the fallback model.
import { safeSink, type Approver } from "../deps.js";
import { ConfigError } from "../errors.js";
import { describeError, isBadRequest, isUnavailable, pickModel } from "../model/client.js";
import { checkSettings } from "../model/settings.js";
import type { StreamOptions } from "../model/stream.js";
import { modesOf, type Runtime } from "../runtime/open-runtime.js";
import { buildSystemPrompt } from "../runtime/system-prompt.js";
import { COMPACT_AT_SHARE_OF_WINDOW, contextWindowFor } from "../sessions/compaction.js";
import type { AnyTool, ToolContext, TurnScope } from "../tools/define.js";
import { isOffered } from "../tools/source.js";
import type { AgentConfig, ContentBlockParam, EventSink, MessageParam, StopReason, ThinkingSetting, ToolChoiceSetting, Usage, WebSettings } from "../types.js";
import { limiter } from "./subagent.js";
import { createOutputFormat } from "./output.js";
import type { TurnOptions } from "./turn-options.js";

const DEFAULT_MAX_ITERATIONS = 20;
const DEFAULT_OUTPUT_RETRIES = 2;
const DEFAULT_MAX_TOKENS = 8192;
/** Ceiling for the one retry after a tool_use was cut off by max_tokens. */
export const MAX_TOKENS_CEILING = 32_000;

/** A parent turn's brakes as a subagent's turn counts against them (see TurnState.shareBrakes): `spent` says why the parent must stop. */
export type SharedBrakes = { request(): void; cost(usage: Usage, costUsd: number): void; spent(): [StopReason, string] | undefined };

/** How a subagent's turn hangs off its parent: the parent's session and call, and the parent's brakes. */
export type ParentLink = { parent: { sessionKey: string; toolUseId: string }; shared: SharedBrakes };

/** Everything one turn runs with, resolved once before it starts (see `setUpTurn`). */
export type TurnSetup = Awaited<ReturnType<typeof setUpTurn>>;

/** Resolves a turn's settings. Throws ConfigError for a combination the API would refuse on every request. */
export async function setUpTurn(runtime: Runtime, agent: AgentConfig, options: TurnOptions, link?: ParentLink) {
  const emit = safeSink(options.onEvent);
  // The permission mode is read at each tool call: a REPL's /mode or exit_plan_mode changes it mid-turn.
  const modes = options.permissionMode === undefined ? runtime.modes : modesOf(options.permissionMode);
  // Read-only calls run concurrently, so approval questions are queued: a person answers one at a time.
  const one = limiter(1);
  const given = options.approver ?? runtime.approver;
  const approver: Approver = (request) => one(() => given(request));
  const gate = runtime.gate({ emit, approver, modes });
  const model = pickModel(agent.model, options.model, runtime.settings.model);
  const settings = modelSettings(agent, options);
  const extraTools = options.tools ?? [];
  const firstTools = await runtime.tools({ agent, mode: modes.mode, offered: new Set() }, extraTools);
  // The web server tools the agent's `tools:` list names and the approvals file does not deny: they run at the provider, so leaving them out is the only gate.
  const offered: WebSettings = { ...agent.web };
  if (offered.search && (!isOffered("web_search", agent) || gate.deniesTool("web_search"))) delete offered.search;
  if (offered.fetch && (!isOffered("web_fetch", agent) || gate.deniesTool("web_fetch"))) delete offered.fetch;
  const web = offered.search || offered.fetch ? offered : undefined;
  checkToolNames(agent, firstTools, web, settings.toolChoice);
  const contextWindow = contextWindowFor(model);
  const { settings: shared, clock } = runtime;
  const signal = options.signal ?? new AbortController().signal;
  const { streamRetryBaseMs: retryBaseMs, streamIdleTimeoutMs: idleTimeoutMs } = shared;
  const stream: StreamOptions = { signal, emit, clock, ...(retryBaseMs !== undefined && { retryBaseMs }), ...(idleTimeoutMs !== undefined && { idleTimeoutMs }) };
  return {
    runtime, agent, client: runtime.client, model, ...settings, web, emit, modes, approver, gate, extraTools, firstTools, contextWindow, link, signal, stream,
    // The turn's `model` option (a fallback for agents that name none), which its subagents share.
    modelOption: options.model,
    fallbackModel: options.fallbackModel ?? agent.fallbackModel,
    /** Whether the turn moved to its fallback model (fallBack, below). */
    crossed: false,
    output: options.output === undefined ? undefined : createOutputFormat(options.output),
    outputRetries: options.outputRetries ?? DEFAULT_OUTPUT_RETRIES,
    maxIterations: options.maxIterations ?? agent.maxIterations ?? DEFAULT_MAX_ITERATIONS,
    maxBudgetUsd: options.maxBudgetUsd ?? Infinity,
    maxOutputTokens: options.maxOutputTokens ?? Infinity,
    hooks: options.hooks, inbox: options.inbox, cacheTtl: options.cacheTtl,
    systemPrompt: buildSystemPrompt({ agent, userProfile: shared.userProfile, project: shared.projectInstructions, skillsListing: runtime.skillsListing, toolNames: [...firstTools.keys()], toolNotes: [...firstTools.values()].flatMap((tool) => tool.systemNote ?? []) }),
    compactAt: shared.compactAt ?? Math.floor(contextWindow * COMPACT_AT_SHARE_OF_WINDOW),
  };
}

/** Thinking, effort, tool choice and max_tokens (a thinking budget added to the default), options over SOUL.md. Throws ConfigError naming the agent and the field. */
function modelSettings(agent: AgentConfig, options: TurnOptions) {
  const thinking = options.thinking ?? agent.thinking;
  const toolChoice = options.toolChoice ?? agent.toolChoice;
  const maxTokens = options.maxTokens ?? agent.maxTokens ?? DEFAULT_MAX_TOKENS + (typeof thinking === "number" ? thinking : 0);
  const clash = checkSettings({ maxTokens, ...(thinking !== undefined && { thinking }), ...(toolChoice !== undefined && { toolChoice }) });
  if (clash) {
    const [field, problem] = clash;
    const given = field === "thinking" ? options.thinking !== undefined : options.toolChoice !== undefined;
    throw new ConfigError(`agent "${agent.id}": ${given ? `the turn's ${field} setting (an option or flag)` : `"${field}" (SOUL.md)`} ${problem}`);
  }
  return { thinking, effort: options.effort ?? agent.effort, toolChoice, maxTokens };
}

/** Refuses before any request what every request would be refused for: a tool choice naming a tool not offered, or a tool named like an offered web server tool. */
function checkToolNames(agent: AgentConfig, tools: ReadonlyMap<string, AnyTool>, web: WebSettings | undefined, toolChoice: ToolChoiceSetting | undefined): void {
  const serverTools = [...(web?.search ? ["web_search"] : []), ...(web?.fetch ? ["web_fetch"] : [])];
  const twice = serverTools.find((name) => tools.has(name));
  if (twice) throw new ConfigError(`agent "${agent.id}": a tool named "${twice}" is given while its SOUL.md "web" offers the server tool of that name: rename the tool, or turn that part of web off`);
  if (typeof toolChoice !== "object" || tools.has(toolChoice.tool) || serverTools.includes(toolChoice.tool)) return;
  const offered = [...tools.keys(), ...serverTools].join(", ") || "none";
  throw new ConfigError(`agent "${agent.id}": "tool_choice" names the tool "${toolChoice.tool}", which this turn does not offer (offered: ${offered})`);
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** The user's message: text, or content blocks (text, images, documents) as the library takes them. */
export type UserContent = string | readonly ContentBlockParam[];

/** The user message of a turn: the time (without Intl, whose first use costs ~15 ms) and `extra` in blocks of their own, never in the cached system prompt. */
export function userMessage(text: UserContent, now: number | undefined, extra: readonly ContentBlockParam[] = []): MessageParam {
  const blocks: ContentBlockParam[] = typeof text === "string" ? [{ type: "text", text: text.trim() ? text : "(empty message)" }] : [...text];
  const d = now === undefined ? undefined : new Date(now);
  if (d) blocks.push({ type: "text", text: `<context>Current time: ${WEEKDAYS[d.getUTCDay()]} ${d.toISOString().slice(0, 16).replace("T", " ")} UTC</context>` });
  return { role: "user", content: [...blocks, ...extra] };
}

/** The context of one tool call: every effect the runtime injects, the gate, and the turn. */
export function toolContext(rt: TurnSetup, scope: TurnScope, toolUseId: string): ToolContext {
  const { cwd, workspace, clock, spawn, childEnv } = rt.runtime;
  return { cwd, workspace, signal: rt.signal, clock, spawn, env: childEnv, emit: rt.emit, toolUseId, gate: rt.gate, turn: scope };
}

/** A request refused for the web server tools (a provider without them answers 400): one line naming the agent and how to turn `web` off. */
export function webRefused(rt: TurnSetup, error: unknown): string | undefined {
  if (!rt.web || !isBadRequest(error) || !/web_(search|fetch)|server tool/i.test(error.message)) return undefined;
  return (
    `agent "${rt.agent.id}" offers the web server tools (web_search, web_fetch), which the server at ${rt.client.baseURL} refused ` +
    `(${describeError(error)}); set "web: false" in agents/${rt.agent.id}/SOUL.md, or leave web_search and web_fetch out of its tools: list`
  );
}

/** A 400 saying the prompt does not fit: compact and retry once. */
export function isPromptTooLong(error: unknown): boolean {
  return isBadRequest(error) && /prompt is too long|context window|too many tokens/i.test(error.message);
}

type Switchable = { model: string; fallbackModel: string | undefined; thinking: ThinkingSetting | undefined; crossed: boolean; emit: EventSink };

/** Blocks signed or encrypted for the model that wrote them: another model refuses them. */
const MODEL_BOUND = /^(thinking|redacted_thinking|server_tool_use|[a-z_]+_tool_result)$/;

/**
 * Moves the turn to its fallback model when `error` says the model is overloaded or unavailable and there is one: emits `fallback` and returns true (ask
 * again). From then on the turn does not think, and its history goes through `forAnotherModel`, so no request carries a block the fallback would refuse.
 */
export function fallBack(rt: Switchable, error: unknown): boolean {
  if (rt.fallbackModel === undefined || rt.fallbackModel === rt.model || !isUnavailable(error)) return false;
  rt.emit({ type: "fallback", from: rt.model, to: rt.fallbackModel, reason: describeError(error) });
  rt.model = rt.fallbackModel;
  rt.thinking = "off";
  rt.crossed = true;
  return true;
}

/** The history for a model other than the one that wrote it: thinking and server tool blocks left out, and citations of those results. Pure. */
export function forAnotherModel(messages: readonly MessageParam[]): MessageParam[] {
  return messages.map((message) => {
    if (message.role !== "assistant" || typeof message.content === "string") return message;
    const bound = message.content.some((b) => MODEL_BOUND.test(b.type) || (b.type === "text" && b.citations));
    if (!bound) return message;
    const kept = message.content.filter((b) => !MODEL_BOUND.test(b.type)).map((b) => (b.type === "text" ? { type: "text" as const, text: b.text } : b));
    return { role: "assistant", content: kept.length > 0 ? kept : [{ type: "text", text: "(an earlier model's thinking, left out)" }] };
  });
}
