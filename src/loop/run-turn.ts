// THE loop: one user message in, model requests and tool rounds until the model is done or a brake stops it; and the turn as an async iterable.
import { Readable } from "node:stream";
import { asApiError, describeError } from "../model/client.js";
import { streamMessage } from "../model/stream.js";
import { fromApiUsage } from "../model/usage.js";
import { cleanResponse } from "../sessions/repair.js";
import { openSession, type SessionHandle } from "../sessions/session-handle.js";
import { toolResultText } from "../content.js";
import { isRuntime, openRuntime, type Runtime } from "../runtime/open-runtime.js";
import { runToolUses } from "../tools/dispatch.js";
import type { AnyTool, TurnScope } from "../tools/define.js";
import type { AgentConfig, AgentEvent, ApiMessage, ContentBlockParam, ToolUseBlock, TurnResult, Usage } from "../types.js";
import { ContextKeeper } from "./compact.js";
import { answerText } from "./output.js";
import { buildRequest } from "./request.js";
import { turnScope } from "./subagent.js";
import { checkTurnArguments, runHook, type TurnOptions } from "./turn-options.js";
import { fallBack, forAnotherModel, isPromptTooLong, setUpTurn, toolContext, userMessage, webRefused } from "./turn-setup.js";
import type { ParentLink, TurnSetup, UserContent } from "./turn-setup.js";
import { appendOrFail, appendSteered, finish, PLAN_MODE_NOTICE, recordMode, settleOutput, TurnState } from "./turn-state.js";

const INTERRUPTED = "interrupted by the user";

/**
 * Runs one turn of `agent` in session `sessionKey` to its end; the user's message is text, or content blocks (text, images, documents). Once the session is locked it never rejects: a failure ends the turn `error` (with a
 * one-line `error`), an abort `aborted`; `turn_end` is emitted and the session left valid. Without a runtime in `options`, one is opened for the turn.
 * Throws only what a person must fix first: ConfigError (a bad argument or option, no credentials), SessionError (the session stayed busy).
 */
export async function runAgentTurn<T = unknown>(sessionKey: string, userText: UserContent, agent: AgentConfig, options: TurnOptions<T> = {}): Promise<TurnResult<T>> {
  checkTurnArguments(sessionKey, userText, agent, options);
  const { runtime: given, workspace, client, ...turn } = options as TurnOptions;
  const runtime = isRuntime(given) ? given : await openRuntime({ ...given, ...(workspace !== undefined && { workspace }), ...(client !== undefined && { client }) });
  try {
    // The output, when there is one, was validated against options.output: it is a T.
    return (await runTurn(runtime, sessionKey, userText, agent, turn)) as TurnResult<T>;
  } finally {
    if (runtime !== given) await runtime.close();
  }
}

/** One turn on an open runtime; a subagent's turn comes with its link to the parent. */
async function runTurn(runtime: Runtime, sessionKey: string, userText: UserContent, agent: AgentConfig, options: TurnOptions, link?: ParentLink): Promise<TurnResult> {
  const rt = await setUpTurn(runtime, agent, options, link);
  const turn = new TurnState(rt, { sessionKey, agentId: agent.id });
  const opened = await openSession(runtime.store, sessionKey, { agentId: agent.id, clock: runtime.clock, signal: rt.signal, ...(link && { parent: link.parent }) });
  if (opened.status === "aborted") return turn.end("aborted", "interrupted before the turn started");
  rt.emit({ type: "turn_start", sessionKey, agentId: agent.id });
  if (opened.status === "unreadable") return turn.end("error", `could not read the session: ${opened.error}`);
  const session = opened.handle;
  const result = await runRounds(rt, session, turn, userText)
    .catch((error: unknown) => finish(session, turn, "error", `unexpected failure: ${describeError(error)}`))
    .finally(() => session.release());
  await runHook("onTurnEnd", rt.hooks?.onTurnEnd && (() => rt.hooks!.onTurnEnd!(result)), rt.emit);
  return result;
}

/** The rounds of a turn: request, store the response, run its tools, store their results, until a stop. */
async function runRounds(rt: TurnSetup, session: SessionHandle, turn: TurnState, userText: UserContent): Promise<TurnResult> {
  for (const warning of session.session.warnings) rt.emit({ type: "warning", message: warning });
  let tools = rt.firstTools;
  const scope = turnScope(rt, turn, session.key, () => tools, (key, task, child, options, link) => runTurn(rt.runtime, key, task, child, options, link));
  const context = new ContextKeeper(rt, session, (usage) => turn.count(usage));
  const refused = await storeUserMessage(rt, session, turn, context, userText);
  if (refused) return refused;
  for (;;) {
    if (rt.signal.aborted) return finish(session, turn, "aborted", INTERRUPTED);
    const brake = turn.stopBefore();
    if (brake) return finish(session, turn, ...brake);
    // Counted at once, with no await since the check: subagents running together share the brake.
    turn.request();
    const unfit = await context.fit();
    if (unfit) return finish(session, turn, "model_context_window_exceeded", unfit);
    // The sources are asked again before each request: a server's new tools, a mode that turned plan.
    if (turn.iterations > 1) tools = await rt.runtime.tools({ agent: rt.agent, mode: rt.modes.mode, offered: new Set(tools.keys()) }, rt.extraTools);
    rt.emit({ type: "request_start", iteration: turn.iterations, model: rt.model });
    const streamed = await streamMessage(rt.client, requestOf(rt, turn, context, tools), rt.stream);
    if (streamed.outcome === "aborted") return finish(session, turn, "aborted", INTERRUPTED);
    if (streamed.outcome === "failed") {
      if (fallBack(rt, streamed.error)) continue;
      if (!isPromptTooLong(streamed.error) || turn.overflowCompacted) {
        const status = asApiError(streamed.error)?.status;
        return finish(session, turn, "error", webRefused(rt, streamed.error) ?? describeError(streamed.error), status);
      }
      turn.overflowCompacted = true;
      const unfitAfter = await context.fit("the API said the prompt is too long");
      if (unfitAfter) return finish(session, turn, "model_context_window_exceeded", unfitAfter);
      continue;
    }
    const next = await takeResponse(rt, session, turn, context, streamed.message);
    if ("end" in next) return next.end;
    if ("calls" in next) {
      const end = await runTools(rt, session, turn, next.calls, tools, scope);
      if (end) return end;
    }
  }
}

/** Stores the user's message (the time, the plan-mode notice, a start hook's context, waiting steering) before any request; the turn's end if it cannot. */
async function storeUserMessage(rt: TurnSetup, session: SessionHandle, turn: TurnState, context: ContextKeeper, userText: UserContent): Promise<TurnResult | undefined> {
  const start = await runHook("onTurnStart", rt.hooks?.onTurnStart && (() => rt.hooks!.onTurnStart!({ sessionKey: session.key, agentId: rt.agent.id, text: typeof userText === "string" ? userText : toolResultText(userText, "skip") })), rt.emit);
  const added: ContentBlockParam[] = [
    ...(rt.modes.mode === "plan" ? [{ type: "text" as const, text: PLAN_MODE_NOTICE }] : []),
    ...(start?.context?.trim() ? [{ type: "text" as const, text: `<context>${start.context}</context>` }] : []),
    ...(start?.blocks ?? []),
  ];
  const message = userMessage(userText, rt.runtime.settings.includeTime ? rt.runtime.clock.now() : undefined, added);
  const oversized = context.oversized(message);
  if (oversized) return turn.end("error", oversized);
  await recordMode(rt.modes.mode, session, rt.emit, "user");
  const unwritten = await appendSteered(session, rt, message);
  return unwritten ? finish(session, turn, "error", unwritten) : undefined;
}

/** The next request: the history as it is (a paused reply last), the tools of this round, the turn's settings. */
function requestOf(rt: TurnSetup, turn: TurnState, context: ContextKeeper, tools: ReadonlyMap<string, AnyTool>) {
  const { model, thinking, effort, web, cacheTtl } = rt;
  // A forced tool choice is for the first response only, or the turn could never end.
  const toolChoice = turn.answered ? undefined : rt.toolChoice;
  const history = turn.withPaused(context.toSend());
  const messages = rt.crossed ? forAnotherModel(history) : history;
  return buildRequest({ model, maxTokens: turn.maxTokens, system: rt.systemPrompt, tools: [...tools.values()], messages, thinking, effort, web, toolChoice, format: rt.output?.schema, cacheTtl });
}

type Next = { end: TurnResult } | { again: true } | { calls: ToolUseBlock[] };

/** Counts a response, stores what is worth keeping, and decides what comes next. */
async function takeResponse(rt: TurnSetup, session: SessionHandle, turn: TurnState, context: ContextKeeper, message: ApiMessage): Promise<Next> {
  const usage = fromApiUsage(message.usage);
  turn.count(usage, message);
  const stop = message.stop_reason;
  const cutToolUse = stop === "max_tokens" && message.content.some((b) => b.type === "tool_use");
  if (cutToolUse && turn.maxTokens < turn.maxTokensCeiling) {
    turn.setAside(usage);
    turn.maxTokens = Math.min(turn.maxTokens * 2, turn.maxTokensCeiling);
    rt.emit({ type: "retry", attempt: 1, reason: "a tool call was cut off by max_tokens", delayMs: 0 });
    return { again: true };
  }
  if (stop === "model_context_window_exceeded") return overflow(session, turn, context, usage);
  turn.answered = true;
  const { content: received, calls } = cleanResponse(message.content, session.toolUseIds, cutToolUse);
  if (stop === "pause_turn") {
    // The API continues a paused message when it is sent back last; it is stored once whole, as one message.
    turn.pause(received, usage);
    return { again: true };
  }
  const content = turn.takePaused(received);
  if (content.length === 0) turn.setAside(usage);
  else {
    const extra = { usage, model: message.model, ...(stop && { stopReason: stop }), ...turn.unstored };
    const unwritten = await appendOrFail(() => session.append({ role: "assistant", content }, extra));
    if (unwritten) return { end: await finish(session, turn, "error", unwritten) };
    turn.unstored = {};
  }
  const text = content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  if (text) turn.text = text;
  if (stop === "tool_use" && !cutToolUse && calls.length > 0) return { calls };
  // A steering message that came after the model's last reply starts a follow-up, in this turn.
  const followUp = await appendSteered(session, rt);
  if (followUp !== false) return followUp === undefined ? { again: true } : { end: await finish(session, turn, "error", followUp) };
  const ended = stop === null || stop === "tool_use" ? "end_turn" : stop;
  if (rt.output && ended !== "refusal") return settleOutput(rt, session, turn, ended, answerText(content));
  return { end: await finish(session, turn, ended) };
}

/** A reply cut by the context window is dropped, with any paused part before it: after compaction the model answers again. A second overflow ends the turn. */
async function overflow(session: SessionHandle, turn: TurnState, context: ContextKeeper, usage: Usage): Promise<Next> {
  const stop = "model_context_window_exceeded";
  turn.setAside(usage);
  turn.paused = [];
  if (turn.overflowCompacted) return { end: await finish(session, turn, stop, "the conversation no longer fits the model's context window, even after compaction") };
  turn.overflowCompacted = true;
  const unfit = await context.fit("the model's context window was exceeded");
  return unfit ? { end: await finish(session, turn, stop, unfit) } : { again: true };
}

/** Runs the calls of a response and stores their results; resolves to the turn's end when a brake stops it. */
async function runTools(rt: TurnSetup, session: SessionHandle, turn: TurnState, calls: ToolUseBlock[], tools: ReadonlyMap<string, AnyTool>, scope: TurnScope): Promise<TurnResult | undefined> {
  const overBudget = turn.overBudget();
  const results = await runToolUses(calls, {
    tools, gate: rt.gate, signal: rt.signal, hooks: rt.hooks, secrets: rt.runtime.secrets,
    context: (id) => toolContext(rt, scope, id),
    refuse: (call) => (overBudget ? `Not run: ${overBudget}. The turn has ended.` : turn.breaker.check(call)),
    onStart: (call) => rt.emit({ type: "tool_call", id: call.id, name: call.name, input: call.input }),
    onResult: (call, answer) => rt.emit({ type: "tool_result", id: call.id, name: call.name, isError: answer.is_error === true, content: toolResultText(answer.content) }),
  });
  const unwritten = await appendSteered(session, rt, { role: "user", content: results });
  if (unwritten) return finish(session, turn, "error", unwritten);
  await recordMode(rt.modes.mode, session, rt.emit, turn.modeChangedBy);
  turn.modeChangedBy = "user";
  if (rt.signal.aborted) return finish(session, turn, "aborted", INTERRUPTED);
  if (overBudget) return finish(session, turn, "budget_exceeded", overBudget);
  if (turn.breaker.tripped) return finish(session, turn, "repeated_tool_call", "the same tool call was repeated with the same input");
  return undefined;
}

/** What `streamAgentTurn` yields: every event of the turn, in order, then the result. */
export type TurnMessage<T = unknown> = AgentEvent | { type: "result"; result: TurnResult<T> };

/**
 * `runAgentTurn` as an async iterable: each event (an `onEvent` given is still called), then `{ type: "result", result }`. Leaving early interrupts the
 * turn (`aborted`, its session valid); what `runAgentTurn` throws is thrown after the events before it.
 */
export async function* streamAgentTurn<T = unknown>(sessionKey: string, userText: UserContent, agent: AgentConfig, options: TurnOptions<T> = {}): AsyncIterable<TurnMessage<T>> {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // The events wait here until read; the stream ends when the turn does.
  const events = new Readable({ objectMode: true, read() {} });
  // An event after the turn ended (a tool still running past an interrupt) goes to onEvent alone: the stream has ended.
  let ended = false;
  const onEvent = (event: AgentEvent): void => {
    options.onEvent?.(event);
    if (!ended) events.push(event);
  };
  const done = runAgentTurn(sessionKey, userText, agent, { ...options, signal, onEvent }).finally(() => {
    ended = true;
    events.push(null);
  });
  done.catch(() => {}); // Rethrown below, once the events before it are yielded.
  try {
    yield* events as AsyncIterable<AgentEvent>;
    yield { type: "result", result: await done };
  } finally {
    stop.abort();
    await done.catch(() => {});
  }
}
