// What a turn's tools see of it, and a subagent's turn under its parent's: a fresh session linked to the parent, the parent's mode, approver, signal, events and brakes.
import { ZERO_USAGE } from "../model/usage.js";
import type { AnyTool, TurnScope } from "../tools/define.js";
import { isAllowedTool } from "../tools/source.js";
import type { AgentConfig, TurnResult } from "../types.js";
import { runHook } from "./hooks.js";
import { limiter } from "./limiter.js";
import { sideRequests } from "./side-request.js";
import type { TurnOptions } from "./turn-options.js";
import type { ParentLink, TurnSetup } from "./turn-setup.js";
import type { TurnState } from "./turn-state.js";

/** Delegate calls of one response running at once, by default. */
export const DEFAULT_MAX_CONCURRENT_DELEGATES = 4;

/** How a child turn is run: the loop's own runner, passed in so this module does not import the loop that imports it. */
export type RunChild = (sessionKey: string, task: string, agent: AgentConfig, options: TurnOptions, link: ParentLink) => Promise<TurnResult>;

/** What a subagent's turn needs of its parent's. */
export interface ParentTurn {
  rt: TurnSetup;
  state: TurnState;
  sessionKey: string;
  /** The names the parent offers now: the most its subagent may have. */
  offered: () => Iterable<string>;
  run: RunChild;
}

/**
 * Runs `childId` on `task` as a subagent. The child gets its own SOUL.md prompt and a fresh session
 * (`agent:<child>:sub-<tool_use id>`, whose header names the parent session and call), the tools both
 * it and the parent have (never `delegate` nor `exit_plan_mode`: depth 1, and only the user's turn
 * leaves plan mode), the parent's mode as it is at each call (never looser), the parent's approver
 * (its requests name the subagent), the parent's abort signal, and the parent's brakes, which each of
 * its requests and costs counts against as it happens. Its events reach the parent's sink tagged with
 * `parentToolUseId`. A child that cannot start (its session busy) still ends, as an error result.
 */
export async function runSubagent(parent: ParentTurn, childId: string, task: string, toolUseId: string): Promise<TurnResult> {
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
  const tools = within.filter((name) => child.tools === undefined || isAllowedTool(name, child.tools));
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
  let result: TurnResult;
  try {
    result = await parent.run(sessionKey, task, { ...child, tools, delegates: [] }, options, link);
  } catch (error) {
    result = failed(childId, sessionKey, error instanceof Error ? error.message : String(error));
  }
  rt.emit({ type: "subagent_end", toolUseId, agentId: childId, stopReason: result.stopReason, usage: result.usage, costUsd: result.costUsd });
  await runHook("onSubagentEnd", hooks?.onSubagentEnd && (() => hooks.onSubagentEnd!({ toolUseId, agentId: childId, result })), rt.emit);
  return result;
}

function failed(agentId: string, sessionKey: string, error: string): TurnResult {
  return { text: "", stopReason: "error", error, usage: ZERO_USAGE, costUsd: 0, iterations: 0, agentId, sessionKey };
}

/** What the turn's tools see of it: its session, and the means to run a subagent or change the mode. */
export function turnScope(rt: TurnSetup, turn: TurnState, sessionKey: string, tools: () => ReadonlyMap<string, AnyTool>, run: RunChild): TurnScope {
  const limit = limiter(rt.runtime.settings.maxConcurrentDelegates ?? DEFAULT_MAX_CONCURRENT_DELEGATES);
  const parent: ParentTurn = { rt, state: turn, sessionKey, offered: () => tools().keys(), run };
  return {
    sessionKey,
    agentId: rt.agent.id,
    delegate: (agentId, task, toolUseId) => limit(() => runSubagent(parent, agentId, task, toolUseId)),
    sample: sideRequests(rt, turn),
    setMode(mode) {
      rt.modes.mode = mode;
      turn.modeChangedBy = "exit_plan_mode";
    },
  };
}

