// THE loop: one user message in, model requests and tool rounds until the model is done or a brake stops it.
import Anthropic from "@anthropic-ai/sdk";
import { ContextKeeper } from "./context-keeper.js";
import { estimateCostUsd, fromApiUsage, addUsage, ZERO_USAGE } from "../model/usage.js";
import { AbortedError, describeError, streamMessage } from "../model/stream.js";
import { runToolUses, resultText } from "../tools/dispatch.js";
import { headerRecordFor, newRecordId } from "../sessions/record-builders.js";
import type { MessageRecord, SessionRecord } from "../sessions/records.js";
import type { AgentConfig, ApiMessage, ContentBlockParam, MessageParam, StopReason, TurnResult, Usage } from "../types.js";
import { budgetExceeded, RepeatBreaker } from "./brakes.js";
import { resolveTurnOptions, MAX_TOKENS_CEILING, type TurnOptions, type TurnRuntime } from "./options.js";
import { buildRequest } from "./request.js";
import { normalizeToolUses, toolContext, userMessage } from "./turn-parts.js";

/**
 * Runs one turn of `agent` in session `sessionKey` to its end and resolves to its
 * result. Failures of the model or the network end the turn with stop reason `error`
 * (and a one-line `error`); an abort through `options.signal` ends it with `aborted`.
 * Either way the session is left valid for the next request. Throws only what a
 * person must fix before any request is made: ConfigError (no credentials) and
 * SessionError (session busy or unwritable).
 */
export async function runAgentTurn(
  sessionKey: string,
  userText: string,
  agent: AgentConfig,
  options: TurnOptions = {},
): Promise<TurnResult> {
  const rt = await resolveTurnOptions(agent, options);
  try {
    const release = await lockUnlessAborted(rt, sessionKey);
    if (!release) {
      const end = { stopReason: "aborted" as const, usage: ZERO_USAGE, costUsd: 0, iterations: 0, error: "interrupted before the turn started" };
      rt.emit({ type: "turn_end", ...end });
      return { text: "", agentId: agent.id, sessionKey, ...end };
    }
    try {
      return await runLocked(rt, sessionKey, userText, agent);
    } finally {
      await release();
    }
  } finally {
    rt.ownedMemory?.close();
  }
}

async function runLocked(rt: TurnRuntime, key: string, userText: string, agent: AgentConfig): Promise<TurnResult> {
  rt.emit({ type: "turn_start", sessionKey: key, agentId: agent.id });
  const session = await rt.store.load(key);
  for (const warning of session.warnings) rt.emit({ type: "warning", message: warning });
  let usage: Usage = ZERO_USAGE;
  let costUsd = 0;
  const count = (response: Usage): void => {
    usage = addUsage(usage, response);
    costUsd += estimateCostUsd(rt.model, response);
    rt.emit({ type: "usage", usage: response, costUsd: estimateCostUsd(rt.model, response) });
  };
  const context = new ContextKeeper(rt, key, session, count);
  let needsHeader = !session.exists;
  /** Appends one message to the file first, then to the history: what the model sees is always on disk. */
  /** Usage of responses not stored yet; it rides on the next assistant record, so the file sums the whole cost. */
  let discarded: Usage | undefined;
  const persist = async (message: MessageParam, extra: Partial<MessageRecord> = {}): Promise<void> => {
    const carried = message.role === "assistant" && discarded ? { discardedUsage: discarded } : {};
    const record: SessionRecord = { type: "message", id: newRecordId(), ts: rt.clock.now(), message, ...extra, ...carried };
    const header: SessionRecord[] = needsHeader ? [headerRecordFor(key, agent.id, rt.clock.now())] : [];
    await rt.store.append(key, [...header, record]);
    needsHeader = false;
    if (message.role === "assistant") discarded = undefined;
    context.push(message, extra.usage);
  };

  let iterations = 0;
  let text = "";
  let maxTokens = rt.maxTokens;
  const breaker = new RepeatBreaker();
  const finish = async (stopReason: StopReason, error?: string, errorStatus?: number): Promise<TurnResult> => {
    if (context.history.at(-1)?.role === "user") {
      // Say in the transcript why the user's message (or the tool results) got no reply, so the file reads true.
      const why = error ?? (NOTED_STOPS.has(stopReason) ? stopReason.replace(/_/g, " ") : "the model gave no reply");
      const note = `(miniclaw stopped this turn: ${why})`;
      await persistOrFail(() => persist({ role: "assistant", content: [{ type: "text", text: note }] }, { synthetic: true }));
    }
    const end = { stopReason, usage, costUsd, iterations, ...(error !== undefined && { error }) };
    rt.emit({ type: "turn_end", ...end });
    return { text, agentId: agent.id, sessionKey: key, ...end, ...(errorStatus !== undefined && { errorStatus }) };
  };

  await persist(userMessage(userText, rt.includeTime ? rt.clock.now() : undefined));

  const tools = [...rt.tools.values()];
  const streamOptions = {
    signal: rt.signal,
    emit: rt.emit,
    clock: rt.clock,
    ...(rt.streamRetryBaseMs !== undefined && { retryBaseMs: rt.streamRetryBaseMs }),
    ...(rt.streamIdleTimeoutMs !== undefined && { idleTimeoutMs: rt.streamIdleTimeoutMs }),
  };
  let compactedForOverflow = false;

  for (;;) {
    if (rt.signal.aborted) return finish("aborted", "interrupted by the user");
    if (iterations >= rt.maxIterations) return finish("max_iterations", `stopped after ${rt.maxIterations} model requests`);
    const unfit = await context.fit();
    if (unfit) return finish("model_context_window_exceeded", unfit);
    iterations++;
    const { params } = buildRequest({ model: rt.model, maxTokens, system: rt.systemPrompt, tools, messages: context.toSend() });
    rt.emit({ type: "request_start", iteration: iterations, model: rt.model });
    let message: ApiMessage;
    try {
      message = await streamMessage(rt.client, params, streamOptions);
    } catch (error) {
      if (error instanceof AbortedError) return finish("aborted", "interrupted by the user");
      if (isPromptTooLong(error) && !compactedForOverflow) {
        compactedForOverflow = true;
        const unfitAfter = await context.fit("the API said the prompt is too long");
        if (unfitAfter) return finish("model_context_window_exceeded", unfitAfter);
        continue;
      }
      return finish("error", describeError(error), error instanceof Anthropic.APIError ? error.status : undefined);
    }
    const responseUsage = fromApiUsage(message.usage);
    count(responseUsage);

    const cutToolUse = message.stop_reason === "max_tokens" && message.content.some((b) => b.type === "tool_use");
    if (cutToolUse && maxTokens < MAX_TOKENS_CEILING) {
      discarded = addUsage(discarded ?? ZERO_USAGE, responseUsage);
      maxTokens = Math.min(maxTokens * 2, MAX_TOKENS_CEILING);
      rt.emit({ type: "retry", attempt: 1, reason: "a tool call was cut off by max_tokens", delayMs: 0 });
      continue;
    }
    const stop = message.stop_reason;
    // A reply cut by the context window is dropped: after compaction the model answers again, from a user message.
    const overflowed = stop === "model_context_window_exceeded";
    const { content, calls } = normalizeToolUses(overflowed ? [] : keptContent(message, cutToolUse), context.history);
    const responseText = textOf(content);
    if (responseText) text = responseText;
    if (content.length === 0) discarded = addUsage(discarded ?? ZERO_USAGE, responseUsage);
    if (content.length > 0) {
      const stored = await persistOrFail(() =>
        persist({ role: "assistant", content }, { usage: responseUsage, model: message.model, ...(message.stop_reason && { stopReason: message.stop_reason }) }),
      );
      if (stored) return finish("error", stored);
    }

    if (stop === "pause_turn") continue;
    if (stop === "model_context_window_exceeded") {
      if (compactedForOverflow) return finish(stop, "the conversation no longer fits the model's context window, even after compaction");
      compactedForOverflow = true;
      const unfitAfter = await context.fit("the model's context window was exceeded");
      if (unfitAfter) return finish(stop, unfitAfter);
      continue;
    }
    if (stop !== "tool_use" || cutToolUse || calls.length === 0) return finish(stop === null || stop === "tool_use" ? "end_turn" : stop);

    const overBudget = budgetExceeded(usage, costUsd, rt);
    const results = await runToolUses(calls, {
      tools: rt.tools,
      context: (id) => toolContext(rt, id),
      signal: rt.signal,
      hooks: rt.hooks,
      secrets: rt.secrets,
      refuse: (call) => (overBudget ? `Not run: ${overBudget}. The turn has ended.` : breaker.check(call)),
      onStart: (call) => rt.emit({ type: "tool_call", id: call.id, name: call.name, input: call.input }),
      onResult: (call, answer) =>
        rt.emit({ type: "tool_result", id: call.id, name: call.name, isError: answer.is_error === true, content: resultText(answer) }),
    });
    const failed = await persistOrFail(() => persist({ role: "user", content: results }));
    if (failed) return finish("error", failed);
    if (rt.signal.aborted) return finish("aborted", "interrupted by the user");
    if (overBudget) return finish("budget_exceeded", overBudget);
    if (breaker.tripped) return finish("repeated_tool_call", "the same tool call was repeated with the same input");
  }
}

/**
 * Waits for the session's lock (another turn of it may be running) unless the turn is
 * aborted first; resolves undefined then, and a lock won after the abort is released at once.
 */
async function lockUnlessAborted(rt: TurnRuntime, key: string): Promise<(() => Promise<void>) | undefined> {
  if (rt.signal.aborted) return undefined;
  const locking = rt.store.lock(key);
  let onAbort = (): void => {};
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    rt.signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const release = await Promise.race([locking, aborted]);
    if (!release) locking.then((late) => late(), () => undefined);
    return release;
  } finally {
    rt.signal.removeEventListener("abort", onAbort);
  }
}

/** Stops of the harness's own, named in the note that answers a turn left without a reply. */
const NOTED_STOPS: ReadonlySet<StopReason> = new Set(["aborted", "error", "max_iterations", "budget_exceeded", "repeated_tool_call", "model_context_window_exceeded"]);

/** The blocks worth keeping: no empty text, and no tool_use cut off by max_tokens. */
function keptContent(message: ApiMessage, dropToolUse: boolean): ContentBlockParam[] {
  return (message.content as ContentBlockParam[]).filter((b) => {
    if (b.type === "text") return b.text.trim() !== "";
    if (b.type === "tool_use") return !dropToolUse;
    return true;
  });
}

function textOf(content: ContentBlockParam[]): string {
  return content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
}

/** Runs an append; a failure (disk full, permissions) becomes a one-line error instead of a throw. */
async function persistOrFail(write: () => Promise<void>): Promise<string | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    return `could not write the session: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** A 400 saying the prompt does not fit: compact and retry once. */
function isPromptTooLong(error: unknown): boolean {
  return error instanceof Anthropic.BadRequestError && /prompt is too long|context window|too many tokens/i.test(error.message);
}
