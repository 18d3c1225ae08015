// Small pieces the loop uses: the user message of a turn, the context of one tool call, the stream settings, and API refusals read for what can be done.
import { describeError, isBadRequest } from "../model/api-error.js";
import type { StreamOptions } from "../model/stream.js";
import type { ToolContext, TurnScope } from "../tools/define.js";
import type { ContentBlockParam, MessageParam } from "../types.js";
import type { TurnSetup } from "./turn-setup.js";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/**
 * The user message of a turn: the current time (`Sunday 2026-11-29 15:40 UTC`, without Intl, whose first use costs ~15 ms)
 * in a block of its own and `extra` blocks after it, never in the system prompt, so the prompt prefix stays cached.
 */
export function userMessage(text: string, now: number | undefined, extra: readonly ContentBlockParam[] = []): MessageParam {
  const blocks: ContentBlockParam[] = [{ type: "text", text: text.trim() ? text : "(empty message)" }];
  const d = now === undefined ? undefined : new Date(now);
  if (d) blocks.push({ type: "text", text: `<context>Current time: ${WEEKDAYS[d.getUTCDay()]} ${d.toISOString().slice(0, 16).replace("T", " ")} UTC</context>` });
  return { role: "user", content: [...blocks, ...extra] };
}

/** The context of one tool call: every effect the runtime injects, the gate, and the turn. */
export function toolContext(rt: TurnSetup, scope: TurnScope, toolUseId: string): ToolContext {
  const { cwd, workspace, clock, spawn, childEnv } = rt.runtime;
  return { cwd, workspace, signal: rt.signal, clock, spawn, env: childEnv, emit: rt.emit, toolUseId, gate: rt.gate, turn: scope };
}

/** The stream settings of the turn's requests. */
export function streamOptions(rt: TurnSetup): StreamOptions {
  const { settings, clock } = rt.runtime;
  return {
    signal: rt.signal,
    emit: rt.emit,
    clock,
    ...(settings.streamRetryBaseMs !== undefined && { retryBaseMs: settings.streamRetryBaseMs }),
    ...(settings.streamIdleTimeoutMs !== undefined && { idleTimeoutMs: settings.streamIdleTimeoutMs }),
  };
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
