// The HTTP server: listening, reading and recording requests, routing, and closing every connection.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { answerRequest, RuleBook, type AnswerContext } from "./answer.js";
import { countInputTokens, PromptCache } from "./cache.js";
import { sendApiError, sendJson } from "./respond.js";
import { IssuedLedger } from "./thinking.js";
import type { RecordedRequest, RequestBody, Rule, ScriptedModel, ScriptedModelOptions } from "./types.js";
import { validateRequest } from "./validate.js";

type Records = Pick<ScriptedModel, "requests" | "rejected" | "unmatched" | "tokenCounts">;

async function readBody(req: IncomingMessage): Promise<{ body: RequestBody; error?: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return { body: value as RequestBody };
    return { body: {}, error: "request body must be a JSON object" };
  } catch (error) {
    return { body: {}, error: `There was an error parsing the body of the request: ${(error as Error).message}` };
  }
}

async function record(req: IncomingMessage, path: string, ctx: AnswerContext): Promise<RecordedRequest> {
  const parsed = await readBody(req);
  const given = Object.entries(req.headers).filter((entry): entry is [string, string | string[]] => entry[1] !== undefined);
  const headers = Object.fromEntries(given.map(([name, value]) => [name, Array.isArray(value) ? value.join(", ") : value]));
  const recorded: RecordedRequest = { path, headers, body: parsed.body, stream: parsed.body.stream === true };
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
 * Starts a scripted model on 127.0.0.1 (a free port unless `options.port`); point any Anthropic client at `baseURL`.
 * It answers `POST /v1/messages` (JSON, or the real SSE event sequence with `"stream": true`) and `POST
 * /v1/messages/count_tokens`; any other route is a 404 in the API's error shape.
 *
 * Each request is first validated like the real API (`validateRequest`): an invalid one is answered 400 and recorded in
 * `rejected`. A valid one is answered by the first rule that matches and has `times` left, or else with the text
 * `scripted model: no rule matched "<last user text>"`, recorded in `unmatched`. Usage comes from a simulated prompt
 * cache (`cacheMinTokens`) whose entries expire on `clock`. Thinking blocks are signed, and a request that sends them back altered, or drops them where
 * the API requires them, is refused (see `Reply`); server tools (web_search, web_fetch) answer from `Reply.serverTools`
 * unless `serverTools: false`. A script function (match or reply) that throws is answered 500 with its message and
 * `x-should-retry: false`.
 *
 * Throws a TypeError at once for a rule with neither `reply` nor `fault`. `close()` ends stalled responses and destroys open sockets.
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
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
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
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  let closed: Promise<void> | undefined;
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ...records,
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
