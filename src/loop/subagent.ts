// What a turn's tools see of it (a side request to its model among them); a subagent's turn under its parent's (a fresh session linked to it, its mode, approver, signal, events and brakes); at most N jobs at once.
import { messageOf } from "../errors.js";
import type Anthropic from "@anthropic-ai/sdk";
import { fromApiUsage, ZERO_USAGE } from "../model/usage.js";
import type { AnyTool, SideRequest, TurnScope } from "../tools/define.js";
import { isOffered } from "../tools/source.js";
import type { AgentConfig, TurnResult } from "../types.js";
import { runHook, type TurnOptions } from "./turn-options.js";
import type { ParentLink, TurnSetup } from "./turn-setup.js";
import type { TurnState } from "./turn-state.js";

/** How a child turn is run: the loop's own runner, passed in so this module does not import the loop that imports it. */
type RunChild = (sessionKey: string, task: string, agent: AgentConfig, options: TurnOptions, link: ParentLink) => Promise<TurnResult>;

/** What a subagent's turn needs of its parent's: `offered` names what the parent offers now, the most its subagent may have. */
type ParentTurn = { rt: TurnSetup; state: TurnState; sessionKey: string; offered: () => Iterable<string>; run: RunChild };

/** What the turn's tools see of it: its session, and the means to run a subagent (at most `maxConcurrentDelegates`, default 4, at once) or change the mode. */
export function turnScope(rt: TurnSetup, turn: TurnState, sessionKey: string, tools: () => ReadonlyMap<string, AnyTool>, run: RunChild): TurnScope {
  const limit = limiter(rt.runtime.settings.maxConcurrentDelegates ?? 4);
  const parent: ParentTurn = { rt, state: turn, sessionKey, offered: () => tools().keys(), run };
  return {
    sessionKey,
    agentId: rt.agent.id,
    delegate: (agentId, task, toolUseId) => limit(() => runSubagent(parent, agentId, task, toolUseId)),
    sample: (request, signal) => sample(rt, turn, request, signal),
    setMode(mode) {
      rt.modes.mode = mode;
      turn.modeChangedBy = "exit_plan_mode";
    },
  };
}

/**
 * Runs `childId` on `task` as a subagent: a fresh session (`agent:<child>:sub-<tool_use id>`) naming its parent; the tools both have (never `delegate` or
 * `exit_plan_mode`); the parent's mode at each call, approver, signal and brakes; its events tagged `parentToolUseId`. A child that cannot start ends `error`.
 */
async function runSubagent(parent: ParentTurn, childId: string, task: string, toolUseId: string): Promise<TurnResult> {
  const { rt } = parent;
  const child = rt.runtime.agents[childId];
  const sessionKey = `agent:${childId}:sub-${toolUseId}`;
  // A call that waited for a free slot while the user interrupted never starts its child.
  if (rt.signal.aborted) throw new Error(`the subagent ${childId} was not started: the turn was interrupted`);
  if (!child) throw new Error(`there is no agent ${childId} to delegate to`);
  const hooks = rt.hooks;
  rt.emit({ type: "subagent_start", toolUseId, agentId: childId, sessionKey, task });
  await runHook("onSubagentStart", hooks?.onSubagentStart && (() => hooks.onSubagentStart!({ toolUseId, agentId: childId, sessionKey, task })), rt.emit);
  const within = [...parent.offered()].filter((name) => name !== "delegate" && name !== "exit_plan_mode");
  within.push(...(rt.web?.search ? ["web_search"] : []), ...(rt.web?.fetch ? ["web_fetch"] : []));
  const options: TurnOptions = {
    runtime: rt.runtime,
    // The child sees the parent's mode as it is at each of its calls, and cannot change it.
    permissionMode: { get mode() { return rt.modes.mode; }, set mode(_ignored) {} },
    approver: (request) => rt.approver({ ...request, agent: childId }),
    signal: rt.signal,
    onEvent: (event) => rt.emit({ ...event, parentToolUseId: toolUseId }),
    hooks: { ...(hooks?.beforeToolUse && { beforeToolUse: hooks.beforeToolUse }), ...(hooks?.afterToolUse && { afterToolUse: hooks.afterToolUse }) },
    tools: [...rt.extraTools],
    ...(rt.modelOption !== undefined && { model: rt.modelOption }),
  };
  const link: ParentLink = { parent: { sessionKey: parent.sessionKey, toolUseId }, shared: parent.state.shareBrakes() };
  const agent = { ...child, tools: within.filter((name) => isOffered(name, child)), delegates: [] };
  const failed = (error: unknown): TurnResult => ({ text: "", stopReason: "error", error: messageOf(error), usage: ZERO_USAGE, costUsd: 0, iterations: 0, agentId: childId, sessionKey });
  const result = await parent.run(sessionKey, task, agent, options, link).catch(failed);
  rt.emit({ type: "subagent_end", toolUseId, agentId: childId, stopReason: result.stopReason, usage: result.usage, costUsd: result.costUsd });
  await runHook("onSubagentEnd", hooks?.onSubagentEnd && (() => hooks.onSubagentEnd!({ toolUseId, agentId: childId, result })), rt.emit);
  return result;
}

/**
 * A side request to the turn's model for a tool (an MCP server's sampling). Refused (a throw with one line) at the turn's budget or iteration brake; its
 * usage counts in the turn's usage, cost and budget, and rides on the next stored response as discarded usage, so the session file sums the whole cost.
 */
async function sample(rt: TurnSetup, turn: TurnState, request: SideRequest, signal: AbortSignal): Promise<Anthropic.Message> {
  const brake = turn.stopBefore();
  if (brake) throw new Error(`the turn's limit is reached: ${brake[1]}`);
  const { system, stopSequences } = request;
  const extra = { ...(system?.trim() && { system }), ...(stopSequences?.length && { stop_sequences: stopSequences }) };
  const message = await rt.client.messages.create({ model: rt.model, max_tokens: request.maxTokens, messages: request.messages, ...extra }, { signal });
  const usage = fromApiUsage(message.usage);
  turn.count(usage);
  turn.setAside(usage);
  return message;
}

/** Runs at most `max` jobs at once, the rest in order; a finishing job hands its slot straight to the next waiting one, so a newcomer cannot slip in. */
export function limiter(max: number): <T>(job: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (job) => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
