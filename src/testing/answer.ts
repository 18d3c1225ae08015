// Answering one valid Messages request: the rule that matches (and how many times each may still fire), its fault, and the reply.
import type { ServerResponse } from "node:http";
import type { PromptCache } from "./cache.js";
import { buildMessage, type ScriptedMessage } from "./reply.js";
import { lastToolResults, lastUserText, systemText } from "./conversation.js";
import { messageEvents, sendApiError, sendJson, sendMalformed, sendStream, sleep, statusFor, type StreamPlan } from "./respond.js";
import { unofferedServerTool } from "./server-tools.js";
import type { IssuedLedger } from "./thinking.js";
import type { Fault, Match, RecordedRequest, Reply, Rule } from "./types.js";

function testText(pattern: string | RegExp, text: string): boolean {
  if (typeof pattern === "string") return text.includes(pattern);
  pattern.lastIndex = 0;
  return pattern.test(text);
}

/** An absent match selects everything. */
function matchesRequest(match: Match | undefined, req: RecordedRequest): boolean {
  if (match === undefined) return true;
  if (typeof match === "function") return match(req);
  if (typeof match === "string" || match instanceof RegExp) return testText(match, lastUserText(req.body));
  if (match.userText !== undefined && !testText(match.userText, lastUserText(req.body))) return false;
  if (match.system !== undefined && !testText(match.system, systemText(req.body))) return false;
  const wanted = match.toolResult;
  if (wanted === undefined) return true;
  return lastToolResults(req.body).some((r) => (wanted.name === undefined || r.name === wanted.name) && (wanted.content === undefined || testText(wanted.content, r.text)));
}

/** The rules of one server and the uses left of each; picking a rule uses it up once. */
export class RuleBook {
  readonly #used: number[];

  /** Checks the script at once, so a mistake fails the test there rather than as a confusing reply later: a TypeError naming the rule. */
  constructor(private readonly rules: readonly Rule[]) {
    rules.forEach((rule, i) => {
      if (rule.reply === undefined && rule.fault === undefined) throw new TypeError(`scripted model: rule ${i} needs a reply or a fault`);
      if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) {
        throw new TypeError(`scripted model: rule ${i} has times ${String(rule.times)}; use a whole number >= 0`);
      }
    });
    this.#used = rules.map(() => 0);
  }

  /** The first rule at or after `from` that matches and has uses left, counting the use; a throwing match function's error names the rule. */
  take(req: RecordedRequest, from = 0): [number, Rule] | undefined {
    for (let i = from; i < this.rules.length; i++) {
      const rule = this.rules[i]!;
      const used = this.#used[i]!;
      if (rule.times !== undefined && used >= rule.times) continue;
      try {
        if (!matchesRequest(rule.match, req)) continue;
      } catch (error) {
        throw new Error(`match of rule ${i} threw: ${error instanceof Error ? error.message : String(error)}`);
      }
      this.#used[i] = used + 1;
      return [i, rule];
    }
    return undefined;
  }
}

/** What answering needs from the server: its script, cache, options (see ScriptedModelOptions) and records. */
export interface AnswerContext {
  book: RuleBook;
  cache: PromptCache;
  model: string | undefined;
  contextWindow: number | undefined;
  serverTools: boolean;
  /** The thinking of each call sent, for validating the requests that continue it. */
  issued: IssuedLedger;
  unmatched: RecordedRequest[];
}

type Exchange = { req: RecordedRequest; res: ServerResponse; signal: AbortSignal };

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
  ctx.issued.remember(ex.req.body, message.content);
  if (ex.req.stream) return sendStream(ex.res, messageEvents(message), { ...plan, eventDelayMs: r.delayMs ?? 0 }, ex.signal);
  return sleep(r.delayMs ?? 0, ex.signal).then(() => sendJson(ex.res, 200, message));
}

/** Faults that end the exchange without a reply (HTTP errors, malformed bodies, cuts of a non-streaming request): true when sent. */
function sendTerminalFault(ex: Exchange, fault: Fault): boolean {
  if ("status" in fault) {
    const headers: Record<string, string> = {};
    if (fault.retryAfter !== undefined) headers["retry-after"] = String(fault.retryAfter);
    if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
    sendApiError(ex.res, fault.status, fault.message ?? `scripted ${fault.status} error`, { headers, ...(fault.errorType !== undefined && { errorType: fault.errorType }) });
  } else if ("malformed" in fault) sendMalformed(ex.res, ex.req.stream);
  else if (ex.req.stream) return false;
  else if ("dropAfterEvents" in fault) ex.res.socket?.destroy();
  else if ("sseError" in fault) sendApiError(ex.res, statusFor(fault.sseError), fault.message ?? `scripted ${fault.sseError}`, { errorType: fault.sseError });
  else return false;
  return true;
}

/** Answers a validated request from the rules at or after `from`; a delay fault without a reply hands it on. Throws only when a script function throws. */
export async function answerRequest(ctx: AnswerContext, ex: Exchange, from = 0, pauses: StreamPlan["pauses"] = []): Promise<void> {
  const taken = ctx.book.take(ex.req, from);
  if (!taken) {
    ctx.unmatched.push(ex.req);
    return sendReply(ctx, ex, { text: `scripted model: no rule matched "${lastUserText(ex.req.body)}"` }, { pauses }, "the fallback reply");
  }
  const [index, rule] = taken;
  const fault = rule.fault;
  if (fault && "delayMs" in fault) {
    if (ex.req.stream && fault.afterEvents !== undefined) pauses = [...pauses, { afterEvents: fault.afterEvents, delayMs: fault.delayMs }];
    else await sleep(fault.delayMs, ex.signal);
    if (ex.signal.aborted) return;
    if (rule.reply === undefined) return answerRequest(ctx, ex, index + 1, pauses);
  } else if (fault && sendTerminalFault(ex, fault)) {
    return;
  }
  const value = rule.reply === undefined ? `scripted model: stream cut by rule ${index}` : typeof rule.reply === "function" ? await rule.reply(ex.req) : rule.reply;
  const r = typeof value === "string" ? { text: value } : value;
  const cut: StreamPlan["cut"] =
    fault && "dropAfterEvents" in fault ? { afterEvents: fault.dropAfterEvents }
    : fault && "sseError" in fault ? { afterEvents: fault.afterEvents ?? 0, error: { type: fault.sseError, message: fault.message ?? `scripted ${fault.sseError}` } }
    : undefined;
  return sendReply(ctx, ex, r, cut ? { pauses, cut } : { pauses }, `rule ${index}`);
}
