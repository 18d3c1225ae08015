// The hooks of a turn's lifecycle, around the tool hooks; a throwing lifecycle hook is reported, never fatal.
import type { ToolHooks } from "../tools/dispatch.js";
import { messageOf } from "../errors.js";
import type { EventSink, TurnResult } from "../types.js";

/** What a turn's start hook may add: text given to the model with the user's message (not in the system prompt). */
export interface TurnStartAddition {
  context?: string;
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
  if (!hook) return undefined;
  try {
    return await hook();
  } catch (error) {
    emit({ type: "warning", message: `the ${name} hook failed (${messageOf(error)}); the turn goes on without it` });
    return undefined;
  }
}
