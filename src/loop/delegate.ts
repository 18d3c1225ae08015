// The delegate tool: a task handed to another agent, run as its own turn in a fresh session that links back to the parent.
import * as z from "zod";
import { defineTool, type AnyTool } from "../tools/define.js";
import { ZERO_USAGE } from "../model/usage.js";
import { isSuccessfulStop, type AgentConfig, type TurnResult } from "../types.js";
import { runHook } from "./hooks.js";
import { limiter } from "./limiter.js";
import type { TurnOptions, TurnRuntime } from "./options.js";
import type { TurnState } from "./turn-state.js";
import { isAllowedTool } from "./turn-tools.js";

/** Delegate calls of one response running at once, by default. */
export const DEFAULT_MAX_CONCURRENT_DELEGATES = 4;

/** How a child turn is run: `runAgentTurn`, passed in so this module does not import the loop that imports it. */
export type RunChild = (sessionKey: string, task: string, agent: AgentConfig, options: TurnOptions) => Promise<TurnResult>;

/** What the tool needs from the parent turn. */
export interface DelegateSpec {
  parent: AgentConfig;
  agents: Readonly<Record<string, AgentConfig>>;
  rt: TurnRuntime;
  turn: TurnState;
  sessionKey: string;
  /** The options the parent turn was given: the child shares their client, store, workspace and effects. */
  options: TurnOptions;
  run: RunChild;
}

/**
 * `delegate { agent, task }` for an agent whose SOUL.md lists `delegates`, or undefined when
 * none of them exists. The child turn gets its own SOUL.md prompt and a fresh session
 * (`agent:<child>:sub-<tool_use id>`, whose header names the parent session and call), the
 * tools both it and the parent have (never `delegate`: depth 1), the parent's mode as it is at
 * each call (never looser), the parent's approver (requests name the subagent), the parent's
 * abort signal, and the parent's budget and iteration brakes, which each of its requests and
 * costs counts against as it happens. Its events reach the parent's sink tagged with `parentToolUseId`. The result
 * is the child's final text; an error or a brake is an `is_error` result.
 */
export function createDelegateTool(spec: DelegateSpec): AnyTool | undefined {
  const ids = (spec.parent.delegates ?? []).filter((id) => id !== spec.parent.id && spec.agents[id] !== undefined);
  const [first, ...rest] = ids;
  if (first === undefined) return undefined;
  const limit = limiter(spec.options.maxConcurrentDelegates ?? DEFAULT_MAX_CONCURRENT_DELEGATES);
  const described = ids.map((id) => `${id} (${spec.agents[id]!.name})`).join(", ");
  const tool = defineTool({
    name: "delegate",
    description:
      `Hands a task to another agent, which works on it in a fresh context and returns its final answer: ${described}. ` +
      "It sees none of this conversation: put everything it needs in the task. Several delegate calls in one response run at the same time.",
    input: z.object({ agent: z.enum([first, ...rest]), task: z.string().trim().min(1, "must say what to do") }),
    // Read-only as the gate sees it: the call itself changes nothing, and each of the child's calls is gated
    // under the parent's mode. So delegate calls of one response run together, in plan mode too.
    readOnly: true,
    run: ({ agent, task }, context) => limit(() => runChild(spec, spec.agents[agent]!, task, context.toolUseId)),
  });
  // The child shares the turn's abort signal and stops at once; waiting for it keeps its events before the parent's end.
  return { ...tool, waitsOnInterrupt: true };
}

async function runChild(spec: DelegateSpec, child: AgentConfig, task: string, toolUseId: string): Promise<string> {
  const { rt, turn } = spec;
  // A call that waited for a free slot while the user interrupted never starts its child.
  if (rt.signal.aborted) throw new Error(`the subagent ${child.id} was not started: the turn was interrupted`);
  const sessionKey = `agent:${child.id}:sub-${toolUseId}`;
  const hooks = rt.hooks;
  rt.emit({ type: "subagent_start", toolUseId, agentId: child.id, sessionKey, task });
  await runHook("onSubagentStart", hooks?.onSubagentStart && (() => hooks.onSubagentStart!({ toolUseId, agentId: child.id, sessionKey, task })), rt.emit);
  const parentTools = [
    ...[...rt.tools.keys()].filter((name) => name !== "delegate" && name !== "exit_plan_mode"),
    ...(rt.web?.search ? ["web_search"] : []),
    ...(rt.web?.fetch ? ["web_fetch"] : []),
  ];
  const tools = parentTools.filter((name) => child.tools === undefined || isAllowedTool(name, child.tools));
  const options: TurnOptions = {
    ...sharedEffects(spec.options),
    agents: {},
    // The child sees the parent's mode as it is at each of its calls, and cannot change it.
    permissionMode: { get mode() { return rt.modes.mode; }, set mode(_ignored) {} },
    approver: (request) => rt.approver({ ...request, agent: child.id }),
    signal: rt.signal,
    onEvent: (event) => rt.emit({ ...event, parentToolUseId: toolUseId }),
    hooks: { ...(hooks?.beforeToolUse && { beforeToolUse: hooks.beforeToolUse }), ...(hooks?.afterToolUse && { afterToolUse: hooks.afterToolUse }) },
    // Counted against the parent's brakes as they happen, so children running together share what is left.
    sharedBrakes: turn.shareBrakes(),
    ...(rt.mcp && { mcpServers: rt.mcp }),
    parent: { sessionKey: spec.sessionKey, toolUseId },
  };
  let result: TurnResult;
  try {
    result = await spec.run(sessionKey, task, { ...child, tools, delegates: [] }, options);
  } catch (error) {
    // A child that could not start (its session busy, a setting of its own refused) still ends, as an error.
    const message = error instanceof Error ? error.message : String(error);
    result = { text: "", stopReason: "error", error: message, usage: ZERO_USAGE, costUsd: 0, iterations: 0, agentId: child.id, sessionKey };
  }
  rt.emit({ type: "subagent_end", toolUseId, agentId: child.id, stopReason: result.stopReason, usage: result.usage, costUsd: result.costUsd });
  await runHook("onSubagentEnd", hooks?.onSubagentEnd && (() => hooks.onSubagentEnd!({ toolUseId, agentId: child.id, result })), rt.emit);
  if (isSuccessfulStop(result.stopReason)) return result.text || "(the subagent finished without a text answer)";
  throw new Error(`the subagent ${child.id} stopped (${result.stopReason}${result.error ? `: ${result.error}` : ""})${result.text ? `; its last answer: ${result.text}` : ""}`);
}

/**
 * What a child shares with its parent's options: the effects and stores (client, workspace,
 * sessions, memory, skills, the caller's extra tools, limits of a process). Never the parent's
 * model settings, system prompt or tool choice: the child's own SOUL.md decides those.
 */
function sharedEffects(options: TurnOptions): TurnOptions {
  const keys = [
    "workspace", "cwd", "env", "client", "model", "tools", "builtinTools", "commandTimeoutMs", "clock", "spawn", "store",
    "skills", "memory", "userProfile", "includeTime", "compactAt", "streamRetryBaseMs", "streamIdleTimeoutMs",
  ] as const;
  const shared: Record<string, unknown> = {};
  for (const key of keys) if (options[key] !== undefined) shared[key] = options[key];
  return shared as TurnOptions;
}
