// Answering one valid Messages request: pick the rule, apply its fault, build and send the reply.
import type { ServerResponse } from "node:http";
import type { PromptCache } from "./cache.js";
import type { IssuedLedger } from "./issued.js";
import { buildMessage, unmatchedReply, type ScriptedMessage } from "./reply.js";
import { sendApiError, sendJson, sendMalformed, sendStream, sleep, statusFor, type StreamPlan } from "./respond.js";
import type { RuleBook } from "./rules.js";
import { unofferedServerTool } from "./server-tools.js";
import { messageEvents } from "./sse.js";
import { turnOpeningThinking } from "./thinking.js";
import type { Fault, RecordedRequest, Reply, Rule } from "./types.js";

/** What answering needs from the server: its script, cache, model override and records. */
export interface AnswerContext {
  book: RuleBook;
  cache: PromptCache;
  model: string | undefined;
  /** Prompts longer than this many tokens are refused (see ScriptedModelOptions). */
  contextWindow: number | undefined;
  /** False when the server plays a provider without server tools (see ScriptedModelOptions). */
  serverTools: boolean;
  /** The thinking of each tool call sent, for validating the requests that continue it. */
  issued: IssuedLedger;
  unmatched: RecordedRequest[];
}

/** A request in flight: its record, its response, and the signal that ends it early. */
interface Exchange {
  req: RecordedRequest;
  res: ServerResponse;
  signal: AbortSignal;
}

type RuleReply = NonNullable<Rule["reply"]>;

async function resolveReply(source: RuleReply, req: RecordedRequest): Promise<Reply> {
  const value = typeof source === "function" ? await source(req) : source;
  return typeof value === "string" ? { text: value } : value;
}

/** The message for a reply; a reply the script got wrong throws, naming its rule (answered 500). */
function scriptedMessage(ctx: AnswerContext, ex: Exchange, r: Reply, rule: string): ScriptedMessage {
  try {
    const message = buildMessage(r, ex.req, ctx.cache.account(ex.req.body), ctx.model ?? String(ex.req.body.model));
    const unoffered = unofferedServerTool(message.content, ex.req.body);
    if (unoffered !== null) throw new Error(unoffered);
    return message;
  } catch (error) {
    throw new Error(`${rule}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function sendReply(ctx: AnswerContext, ex: Exchange, r: Reply, plan: Omit<StreamPlan, "eventDelayMs">, rule: string): Promise<void> {
  const message = scriptedMessage(ctx, ex, r, rule);
  ctx.issued.remember(message.content, turnOpeningThinking(ex.req.body, message.content));
  if (ex.req.stream) return sendStream(ex.res, messageEvents(message), { ...plan, eventDelayMs: r.delayMs ?? 0 }, ex.signal);
  return sleep(r.delayMs ?? 0, ex.signal).then(() => sendJson(ex.res, 200, message));
}

function cutOf(fault: Fault): StreamPlan["cut"] | undefined {
  if ("dropAfterEvents" in fault) return { afterEvents: fault.dropAfterEvents };
  if ("sseError" in fault) {
    return { afterEvents: fault.afterEvents ?? 0, error: { type: fault.sseError, message: fault.message ?? `scripted ${fault.sseError}` } };
  }
  return undefined;
}

/** Faults that end the exchange without a reply: HTTP errors, malformed bodies, non-streaming cuts. */
function sendTerminalFault(ex: Exchange, fault: Fault): boolean {
  if ("status" in fault) {
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
    if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
    const message = fault.message ?? `scripted ${fault.status} error`;
    sendApiError(ex.res, fault.status, message, fault.errorType === undefined ? { headers } : { headers, errorType: fault.errorType });
    return true;
  }
  if ("malformed" in fault) {
    sendMalformed(ex.res, ex.req.stream);
    return true;
  }
  if (ex.req.stream) return false;
  if ("dropAfterEvents" in fault) {
    ex.res.socket?.destroy();
    return true;
  }
  if ("sseError" in fault) {
    sendApiError(ex.res, statusFor(fault.sseError), fault.message ?? `scripted ${fault.sseError}`, { errorType: fault.sseError });
    return true;
  }
  return false;
}

/**
 * Answers a validated request from the rules at or after `from`. A delay fault
 * waits (or schedules a pause in the stream) and, in a rule without a reply,
 * hands the request on to the next matching rule. Throws only when a script function throws.
 */
export async function answerRequest(
  ctx: AnswerContext,
  ex: Exchange,
  from = 0,
  pauses: StreamPlan["pauses"] = [],
): Promise<void> {
  const index = ctx.book.take(ex.req, from);
  const rule = ctx.book.rule(index);
  if (!rule) {
    ctx.unmatched.push(ex.req);
    return sendReply(ctx, ex, unmatchedReply(ex.req), { pauses }, "the fallback reply");
  }
  const fault = rule.fault;
  if (fault && "delayMs" in fault) {
    if (ex.req.stream && fault.afterEvents !== undefined) pauses = [...pauses, { afterEvents: fault.afterEvents, delayMs: fault.delayMs }];
    else await sleep(fault.delayMs, ex.signal);
    if (ex.signal.aborted) return;
    if (rule.reply === undefined) return answerRequest(ctx, ex, index + 1, pauses);
  } else if (fault && sendTerminalFault(ex, fault)) {
    return;
  }
  const r = rule.reply === undefined ? { text: `scripted model: stream cut by rule ${index}` } : await resolveReply(rule.reply, ex.req);
  const cut = fault ? cutOf(fault) : undefined;
  return sendReply(ctx, ex, r, cut ? { pauses, cut } : { pauses }, `rule ${index}`);
}
