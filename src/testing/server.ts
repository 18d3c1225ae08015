// The HTTP server: listening, reading and recording requests, routing, and closing every connection.
import type { IncomingMessage, ServerResponse } from "node:http";
import { answerRequest, RuleBook, type AnswerContext } from "./answer.js";
import { countInputTokens, PromptCache } from "./cache.js";
import { headersOf, listenLocal, readText, sendApiError, sendJson } from "./respond.js";
import { IssuedLedger } from "./thinking.js";
import type { RecordedRequest, RequestBody, Rule, ScriptedModel, ScriptedModelOptions } from "./types.js";
import { validateRequest } from "./validate.js";

type Records = Pick<ScriptedModel, "requests" | "rejected" | "unmatched" | "tokenCounts">;

async function readBody(req: IncomingMessage): Promise<{ body: RequestBody; error?: string }> {
  const text = await readText(req);
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { body: value as RequestBody };
    return { body: {}, error: "request body must be a JSON object" };
  } catch (error) {
    return { body: {}, error: `There was an error parsing the body of the request: ${(error as Error).message}` };
  }
}

async function record(req: IncomingMessage, path: string, ctx: AnswerContext): Promise<RecordedRequest> {
  const parsed = await readBody(req);
  const recorded: RecordedRequest = { path, headers: headersOf(req), body: parsed.body, stream: parsed.body.stream === true };
  const options = { countTokens: path.endsWith("/count_tokens"), issuedThinking: ctx.issued.lookup, serverTools: ctx.serverTools };
  const error = parsed.error ?? validateRequest(parsed.body, options) ?? promptTooLong(parsed.body, ctx.contextWindow);
  if (error !== null) recorded.error = error;
  return recorded;
}

/** The API's refusal of a prompt longer than the model's window (only when the server was given one). */
function promptTooLong(body: RequestBody, contextWindow: number | undefined): string | null {
  if (contextWindow === undefined) return null;
  const tokens = countInputTokens(body);
  return tokens > contextWindow ? `prompt is too long: ${tokens} tokens > ${contextWindow} maximum` : null;
}

async function route(req: IncomingMessage, res: ServerResponse, ctx: AnswerContext, records: Records, signal: AbortSignal): Promise<void> {
  const path = new URL(req.url ?? "/", "http://localhost").pathname.replace(/\/+$/, "");
  if (req.method !== "POST" || (path !== "/v1/messages" && path !== "/v1/messages/count_tokens")) {
    req.resume();
    return sendApiError(res, 404, `scripted model: no route for ${req.method ?? "?"} ${path}`);
  }
  const recorded = await record(req, path, ctx);
  if (path === "/v1/messages/count_tokens") {
    records.tokenCounts.push(recorded);
    if (recorded.error !== undefined) return sendApiError(res, 400, recorded.error);
    return sendJson(res, 200, { input_tokens: countInputTokens(recorded.body) });
  }
  records.requests.push(recorded);
  if (recorded.error === undefined) return answerRequest(ctx, { req: recorded, res, signal });
  records.rejected.push(recorded);
  sendApiError(res, 400, recorded.error);
}

/**
 * Starts a scripted model on 127.0.0.1; point any Anthropic client at `baseURL`. It answers `POST /v1/messages` (JSON or
 * SSE) and `/v1/messages/count_tokens`; other routes are a 404 in the API's error shape. Each request is validated like
 * the real API (`validateRequest`; invalid: 400, in `rejected`), then answered by the first matching rule with `times`
 * left, or a "no rule matched" text (in `unmatched`). A throwing script function is answered 500 with `x-should-retry: false`.
 * Throws a TypeError at once for a rule with neither `reply` nor `fault`.
 */
export async function startScriptedModel(rules: readonly Rule[], options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const records: Records = { requests: [], rejected: [], unmatched: [], tokenCounts: [] };
  const ctx: AnswerContext = {
    book: new RuleBook(rules),
    cache: new PromptCache(options.cacheMinTokens ?? 0, options.clock ? () => options.clock!.now() : Date.now),
    model: options.model,
    contextWindow: options.contextWindow,
    serverTools: options.serverTools ?? true,
    issued: new IssuedLedger(),
    unmatched: records.unmatched,
  };
  const closing = new AbortController();
  const local = await listenLocal((req, res) => {
    const exchange = new AbortController();
    const abort = (): void => exchange.abort();
    closing.signal.addEventListener("abort", abort, { once: true });
    // A response sent whole has nothing left to stop (and an abort builds a DOMException, each request).
    res.on("close", () => {
      closing.signal.removeEventListener("abort", abort);
      if (!res.writableFinished) abort();
    });
    route(req, res, ctx, records, exchange.signal).catch((error: unknown) => {
      sendApiError(res, 500, `scripted model: ${error instanceof Error ? error.message : String(error)}`, { headers: { "x-should-retry": "false" } });
    });
  }, options.port);
  let closed: Promise<void> | undefined;
  return {
    baseURL: local.baseURL,
    ...records,
    close() {
      if (!closed) {
        closing.abort();
        closed = local.close();
      }
      return closed;
    },
  };
}
