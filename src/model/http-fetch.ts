// The client's transport: `fetch` over node:http and node:https for the requests the SDK sends, the global fetch for the rest.
//
// Node's own fetch (undici) parses HTTP with a WebAssembly build of llhttp. V8 compiles it at the first
// request, then again with its optimizing tier on background threads: about a quarter of a second of CPU
// beside the first rounds of a turn, and a process done before that compilation waits for it at exit.
// node:http parses with the llhttp compiled into Node itself, so none of that happens.
import type { ClientRequest, IncomingMessage, RequestOptions } from "node:http";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** How requests of one scheme are sent: its module's `request` and a keep-alive agent. */
interface Transport {
  request: typeof httpRequest;
  agent: HttpAgent;
}

/** Statuses whose response has no body, whatever the server sends. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

const HTTP: Transport = { request: httpRequest, agent: new HttpAgent({ keepAlive: true }) };
let https: Promise<Transport> | undefined;

/** node:https, loaded with the first https request (TLS is a large module a plain-http process never needs). */
function transportOf(url: URL): Transport | Promise<Transport> {
  if (url.protocol === "http:") return HTTP;
  https ??= import("node:https").then((module) => ({ request: module.request, agent: new module.Agent({ keepAlive: true }) }));
  return https;
}

/**
 * A `fetch` for the Anthropic client. A request with a string or byte body (or none) to an http or https
 * URL goes over node:http(s) with keep-alive connections, whose idle sockets never hold the process open.
 * Anything else (a stream or form body, a Request object, another scheme, a redirect mode, an undici
 * dispatcher) and any redirect are left to the global fetch. It answers as fetch does: a Response whose
 * body streams as it arrives (inflated when the server compressed it), a rejection with the signal's
 * reason when aborted, and `TypeError("fetch failed")` with the system's error as its cause when the
 * connection fails.
 */
export async function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const url = typeof input === "string" ? new URL(input) : input instanceof URL ? input : undefined;
  const body = bodyBytes(init.body);
  if (url === undefined || body === false || !isPlain(url, init)) return globalThis.fetch(input, init);
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  const { request, agent } = await transportOf(url);
  const options: RequestOptions = { method: init.method ?? "GET", headers: headersOf(init.headers, body), agent };
  const response = await exchange((answer) => request(url, options, answer), body, signal);
  if (REDIRECT_STATUSES.has(response.statusCode ?? 0) && response.headers.location !== undefined) {
    discard(response);
    return globalThis.fetch(input, init);
  }
  return toResponse(response, url, init.method);
}

/** An http(s) request that follows redirects and names no undici dispatcher (a proxy, say): one this transport sends. */
function isPlain(url: URL, init: RequestInit): boolean {
  return (url.protocol === "http:" || url.protocol === "https:") && (init.redirect ?? "follow") === "follow" && !("dispatcher" in init);
}

/** The body as bytes, undefined for none, false for a kind only the global fetch sends (a stream, form data, a blob). */
function bodyBytes(body: RequestInit["body"]): Buffer | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return false;
}

/** The request's headers as node:http takes them, with the body's length (fetch sends one, not chunks). */
function headersOf(init: RequestInit["headers"], body: Buffer | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  new Headers(init).forEach((value, name) => (headers[name] = value));
  if (body !== undefined) headers["content-length"] = String(body.length);
  return headers;
}

/**
 * Sends the request and resolves at the response's head; rejects as fetch does. An abort before the head
 * rejects with the signal's reason, and one after it ends the body stream with that reason, as fetch's does.
 */
function exchange(send: (answer: (message: IncomingMessage) => void) => ClientRequest, body: Buffer | undefined, signal: AbortSignal | undefined): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    let message: IncomingMessage | undefined;
    const release = (): void => signal?.removeEventListener("abort", onAbort);
    const request = send((answer) => {
      message = answer;
      answer.once("close", release);
      resolve(answer);
    });
    const onAbort = (): void => {
      const reason = abortReason(signal as AbortSignal);
      message?.destroy(reason);
      request.destroy(reason);
      reject(reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    request.once("close", () => message === undefined && release());
    // Errors after the response's head reach its body stream; this listener only settles the promise once.
    request.on("error", (error) => reject(signal?.aborted ? abortReason(signal) : new TypeError("fetch failed", { cause: error })));
    request.end(body);
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("This operation was aborted", "AbortError");
}

/** A fetch Response over the incoming message: the body streams, decompressed as fetch would. */
function toResponse(message: IncomingMessage, url: URL, method: string | undefined): Response {
  const status = message.statusCode ?? 0;
  if (status < 200 || status > 599) {
    message.destroy();
    throw new TypeError("fetch failed", { cause: new Error(`the server answered with status ${status}`) });
  }
  const headers = new Headers();
  for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) headers.append(message.rawHeaders[i] as string, message.rawHeaders[i + 1] as string);
  const empty = NULL_BODY_STATUSES.has(status) || method?.toUpperCase() === "HEAD";
  if (empty) discard(message);
  const stream = empty ? null : (Readable.toWeb(decoded(message)) as ReadableStream<Uint8Array>);
  const response = new Response(stream, { status, statusText: message.statusMessage ?? "", headers });
  Object.defineProperty(response, "url", { value: url.href });
  return response;
}

/** Reads a body nobody wants to its end, so the connection can serve the next request. */
function discard(message: IncomingMessage): void {
  message.on("error", () => undefined);
  message.resume();
}

/** The message's body, decompressed when its content-encoding says gzip, deflate or br. */
function decoded(message: IncomingMessage): Readable {
  const encoding = message.headers["content-encoding"]?.trim().toLowerCase();
  const decoder = encoding === "gzip" || encoding === "x-gzip" ? createGunzip() : encoding === "deflate" ? createInflate() : encoding === "br" ? createBrotliDecompress() : undefined;
  if (decoder === undefined) return message;
  message.once("error", (error) => decoder.destroy(error));
  return message.pipe(decoder);
}
