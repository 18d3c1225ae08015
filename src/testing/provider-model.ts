// The scripted model behind a provider's wire format: Bedrock's invoke(-with-response-stream), Vertex's (stream)rawPredict, Foundry's /anthropic/v1/messages.
import type { IncomingMessage, ServerResponse } from "node:http";
import { chunkFrame } from "./event-stream.js";
import { headersOf, listenLocal, readText, sendApiError } from "./respond.js";
import { startScriptedModel } from "./server.js";
import type { Rule, ScriptedModel, ScriptedModelOptions } from "./types.js";

/** The providers whose wire formats this server speaks. */
export type WireProvider = "bedrock" | "vertex" | "foundry";

/** One request as the provider received it: its path (query kept), headers (lower-case names), and the body's bytes as text. */
export interface ProviderRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
}

/** `model` is the scripted model behind, with the validated Messages requests. */
export interface ProviderModel {
  baseURL: string;
  requests: ProviderRequest[];
  model: ScriptedModel;
  close(): Promise<void>;
}

/** The Messages API model and streaming flag a provider path names, or undefined for a path of no model endpoint. */
function route(provider: WireProvider, path: string): { model?: string; stream?: boolean } | undefined {
  const pathname = path.split("?")[0]!;
  if (provider === "bedrock") {
    const match = /\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(pathname);
    return match ? { model: decodeURIComponent(match[1]!), stream: match[2] !== "invoke" } : undefined;
  }
  if (provider === "vertex") {
    const match = /\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/([^/:]+):(streamRawPredict|rawPredict)$/.exec(pathname);
    return match ? { model: decodeURIComponent(match[1]!), stream: match[2] === "streamRawPredict" } : undefined;
  }
  return /\/v1\/messages$/.test(pathname) ? {} : undefined;
}

/** The body the Messages API takes: the model and stream flag from the path, the version and betas out of the body. */
function canonicalBody(raw: string, routed: { model?: string; stream?: boolean }): { body: string; betas: string | undefined } {
  const { anthropic_version: _version, anthropic_beta: betas, ...body } = JSON.parse(raw) as Record<string, unknown>;
  const canonical = { ...(routed.model !== undefined && { model: routed.model }), ...body, ...(routed.stream !== undefined && { stream: routed.stream }) };
  return { body: JSON.stringify(canonical), betas: Array.isArray(betas) ? betas.join(",") : undefined };
}

/** Relays an SSE response as Bedrock's event stream: each event's JSON in a `chunk` frame (an `error` event too, as Bedrock relays it). */
async function relayEventStream(upstream: Response, res: ServerResponse): Promise<void> {
  res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream", "x-amzn-requestid": "scripted" });
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    const events = pending.split("\n\n");
    pending = events.pop() ?? "";
    for (const event of events) {
      const data = event.split("\n").find((line) => line.startsWith("data: "));
      if (data) res.write(chunkFrame(JSON.parse(data.slice(6))));
    }
  }
  res.end();
}

async function relay(provider: WireProvider, req: IncomingMessage, res: ServerResponse, model: ScriptedModel, requests: ProviderRequest[]): Promise<void> {
  const recorded: ProviderRequest = { method: req.method ?? "GET", path: req.url ?? "/", headers: headersOf(req), rawBody: await readText(req) };
  requests.push(recorded);
  const routed = req.method === "POST" ? route(provider, recorded.path) : undefined;
  if (!routed) return sendApiError(res, 404, `scripted ${provider}: no route for ${recorded.method} ${recorded.path}`);
  const { body, betas } = canonicalBody(recorded.rawBody, routed);
  const upstream = await fetch(`${model.baseURL}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...(betas && { "anthropic-beta": betas }) },
    body,
  });
  const streaming = upstream.ok && (upstream.headers.get("content-type") ?? "").startsWith("text/event-stream");
  if (streaming && provider === "bedrock") return relayEventStream(upstream, res);
  const headers = Object.fromEntries([...upstream.headers].filter(([name]) => !["content-length", "transfer-encoding", "connection", "keep-alive"].includes(name)));
  res.writeHead(upstream.status, headers);
  for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
  res.end();
}

/**
 * The scripted model behind a server speaking `provider`'s wire format (Bedrock's invoke paths with the AWS event stream,
 * Vertex's rawPredict, Foundry's messages). Each request is recorded as received, then sent on as the Messages request it
 * stands for, which the scripted model validates as always; another path is a 404.
 */
export async function startProviderModel(provider: WireProvider, rules: readonly Rule[], options: ScriptedModelOptions = {}): Promise<ProviderModel> {
  const model = await startScriptedModel(rules, options);
  const requests: ProviderRequest[] = [];
  const local = await listenLocal((req, res) => {
    relay(provider, req, res, model, requests).catch((error: unknown) => {
      if (!res.headersSent) sendApiError(res, 500, `scripted ${provider}: ${error instanceof Error ? error.message : String(error)}`);
      else res.destroy();
    });
  });
  return { baseURL: local.baseURL, requests, model, close: () => Promise.all([local.close(), model.close()]).then(() => undefined) };
}
