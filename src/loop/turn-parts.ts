// Small builders the loop uses: the user message of a turn and the context of one tool call.
import type { ToolContext } from "../tools/define.js";
import type { ContentBlockParam, MessageParam } from "../types.js";
import type { StreamOptions } from "../model/stream.js";
import type { TurnRuntime } from "./options.js";

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

/** The context of one tool call: every effect the runtime injects. */
export function toolContext(rt: TurnRuntime, toolUseId: string): ToolContext {
  return {
    cwd: rt.cwd,
    workspace: rt.workspace,
    signal: rt.signal,
    clock: rt.clock,
    spawn: rt.spawn,
    env: rt.childEnv,
    emit: rt.emit,
    toolUseId,
    permissions: rt.permissions,
  };
}

/** The stream settings of the turn's requests. */
export function streamOptions(rt: TurnRuntime): StreamOptions {
  return {
    signal: rt.signal,
    emit: rt.emit,
    clock: rt.clock,
    ...(rt.streamRetryBaseMs !== undefined && { retryBaseMs: rt.streamRetryBaseMs }),
    ...(rt.streamIdleTimeoutMs !== undefined && { idleTimeoutMs: rt.streamIdleTimeoutMs }),
  };
}
