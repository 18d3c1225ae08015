// Small builders the loop uses: the user message of a turn, the context of one tool call, the stream settings.
import type { StreamOptions } from "../model/stream.js";
import type { ToolContext, TurnScope } from "../tools/define.js";
import type { ContentBlockParam, MessageParam } from "../types.js";
import type { TurnSetup } from "./turn-setup.js";

/**
 * The user message of a turn. The current time travels here, in a block of its own, and
 * `extra` blocks (the plan-mode notice, a start hook's context, steering) after it: never in
 * the system prompt, so the prompt prefix stays byte-identical and cached.
 */
export function userMessage(text: string, now: number | undefined, extra: readonly ContentBlockParam[] = []): MessageParam {
  const blocks: ContentBlockParam[] = [{ type: "text", text: text.trim() ? text : "(empty message)" }];
  if (now !== undefined) blocks.push({ type: "text", text: `<context>Current time: ${formatTime(now)}</context>` });
  return { role: "user", content: [...blocks, ...extra] };
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** `Sunday 2026-11-29 15:40 UTC`, without Intl (its first use costs ~15 ms at start-up). */
function formatTime(ms: number): string {
  const d = new Date(ms);
  return `${WEEKDAYS[d.getUTCDay()]} ${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The context of one tool call: every effect the runtime injects, the gate, and the turn. */
export function toolContext(rt: TurnSetup, scope: TurnScope, toolUseId: string): ToolContext {
  const { runtime } = rt;
  return {
    cwd: runtime.cwd,
    workspace: runtime.workspace,
    signal: rt.signal,
    clock: runtime.clock,
    spawn: runtime.spawn,
    env: runtime.childEnv,
    emit: rt.emit,
    toolUseId,
    gate: rt.gate,
    turn: scope,
  };
}

/** The stream settings of the turn's requests. */
export function streamOptions(rt: TurnSetup): StreamOptions {
  const { settings } = rt.runtime;
  return {
    signal: rt.signal,
    emit: rt.emit,
    clock: rt.runtime.clock,
    ...(settings.streamRetryBaseMs !== undefined && { retryBaseMs: settings.streamRetryBaseMs }),
    ...(settings.streamIdleTimeoutMs !== undefined && { idleTimeoutMs: settings.streamIdleTimeoutMs }),
  };
}
