// The client's transport: `fetch` over node:http and node:https for the requests the SDK sends, the global fetch for the rest.
// Node's fetch (undici) parses HTTP with a WebAssembly llhttp that V8 compiles at the first request (a quarter of a second
// of CPU, which a short process waits for at exit); node:http uses the llhttp compiled into Node.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from "node:http";
import type { Socket } from "node:net";
import { pipeline, Readable } from "node:stream";
import { constants, createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/**
 * The transport's time limits in milliseconds, undici's defaults unless a test sets others: a kept-alive connection idle `idleMs` is closed (a server or a
 * NAT may have dropped it); connecting (TLS included) past `connectMs`, a response head later than `headMs`, or a body silent for `bodyMs` fails the request.
 */
export type TransportLimits = { idleMs?: number; connectMs?: number; headMs?: number; bodyMs?: number };

const DEFAULT_LIMITS: Required<TransportLimits> = { idleMs: 4_000, connectMs: 10_000, headMs: 300_000, bodyMs: 300_000 };
/** Statuses whose response has no body, whatever the server sends. */
const NULL_BODY_STATUSES = new Set([204, 205, 304]);
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;
/** Headers that carry a credential: never sent on to another origin by a redirect. */
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "proxy-authorization", "cookie"];

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

type Transport = { request: typeof httpRequest; agent: HttpAgent };

type Outgoing = { url: URL; method: string; headers: Record<string, string>; body: Buffer | undefined };

/**
 * A `fetch` for the Anthropic client. A string or byte body (or none) to an http(s) URL goes over node:http(s) with keep-alive connections whose idle
 * sockets never hold the process open; anything else (a stream or form body, a Request, another scheme, a URL with a password, a redirect mode, an undici
 * dispatcher) goes to the global fetch. It answers as fetch does: a Response whose body streams as it arrives (inflated); redirects followed, with no
 * credential sent to another origin, none from https to http or to another scheme; a rejection with the signal's reason when aborted;
 * `TypeError("fetch failed")` with the cause when the connection fails or a limit passes (whose words say "timed out", as the SDK expects).
 */
export function createNodeFetch(limits: TransportLimits = {}): Fetch {
  const { idleMs, ...timeouts } = { ...DEFAULT_LIMITS, ...limits };
  const http: Transport = { request: httpRequest, agent: new HttpAgent({ keepAlive: true, timeout: idleMs }) };
  let https: Promise<Transport> | undefined;
  // node:https is loaded with the first https request (TLS is a large module a plain-http process never needs).
  const transportOf = (url: URL): Transport | Promise<Transport> => {
    if (url.protocol === "http:") return http;
    https ??= import("node:https").then((module) => ({ request: module.request, agent: new module.Agent({ keepAlive: true, timeout: idleMs }) }));
    return https;
  };

  return async (input, init = {}) => {
    const url = typeof input === "string" ? new URL(input) : input instanceof URL ? input : undefined;
    const body = bodyBytes(init.body);
    // Sent here: an http(s) request with a body of bytes, that follows redirects and names no undici dispatcher (a proxy, say); fetch refuses a URL with
    // a user name or password in it, and the global fetch says so.
    const plain = (url?.protocol === "http:" || url?.protocol === "https:") && url.username === "" && url.password === "" && !("dispatcher" in init);
    if (url === undefined || body === false || !plain || (init.redirect ?? "follow") !== "follow") return globalThis.fetch(input, init);
    const signal = init.signal ?? undefined;
    let outgoing: Outgoing = { url, method: (init.method ?? "GET").toUpperCase(), headers: Object.fromEntries(new Headers(init.headers)), body };
    for (let hops = 0; ; hops++) {
      const { request, agent } = await transportOf(outgoing.url);
      const message = await exchange(request, agent, outgoing, signal, timeouts);
      const next = REDIRECT_STATUSES.has(message.statusCode ?? 0) ? redirected(outgoing, message) : undefined;
      if (next === undefined) {
        limitSilence(message, timeouts.bodyMs);
        return toResponse(message, outgoing);
      }
      discard(message);
      if (hops >= MAX_REDIRECTS) throw fetchFailed(new Error(`more than ${MAX_REDIRECTS} redirects`));
      outgoing = next;
    }
  };
}

/** The transport the client uses (`createClient`). */
export const nodeFetch = createNodeFetch();

/** The body as bytes, undefined for none, false for a kind only the global fetch sends (a stream, form data, a blob). */
function bodyBytes(body: RequestInit["body"]): Buffer | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return false;
}

/** The request a redirect asks for, as fetch makes it: 303, and 301 or 302 after a POST, become a GET without a body; see `createNodeFetch`. */
function redirected(from: Outgoing, message: IncomingMessage): Outgoing | undefined {
  const location = message.headers.location;
  if (location === undefined) return undefined;
  const url = URL.canParse(location, from.url.href) ? new URL(location, from.url) : undefined;
  const refusal =
    url === undefined ? `a redirect to an address that does not parse: ${JSON.stringify(location)}`
    : url.protocol !== "http:" && url.protocol !== "https:" ? `refused a redirect to a ${url.protocol} address`
    : from.url.protocol === "https:" && url.protocol !== "https:" ? `refused a redirect from ${from.url.origin} to ${url.origin}`
    : undefined;
  if (url === undefined || refusal !== undefined) {
    discard(message);
    throw fetchFailed(new Error(refusal));
  }
  const status = message.statusCode ?? 0;
  const toGet = status === 303 ? from.method !== "HEAD" : (status === 301 || status === 302) && from.method === "POST";
  const headers = { ...from.headers };
  if (toGet) for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) delete headers[name];
  if (url.origin !== from.url.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
  return { url, method: toGet ? "GET" : from.method, headers, body: toGet ? undefined : from.body };
}

/** Sends one request and resolves at its response's head; an abort before the head rejects with the signal's reason, one after it ends the body with it. */
function exchange(
  request: Transport["request"], agent: HttpAgent, outgoing: Outgoing, signal: AbortSignal | undefined, { connectMs, headMs }: { connectMs: number; headMs: number },
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const headers = outgoing.body === undefined ? outgoing.headers : { ...outgoing.headers, "content-length": String(outgoing.body.length) };
    const options: RequestOptions = { method: outgoing.method, headers, agent };
    let message: IncomingMessage | undefined;
    const release = (): void => signal?.removeEventListener("abort", onAbort);
    const sent: ClientRequest = request(outgoing.url, options, (answer) => {
      clearTimeout(headTimer);
      message = answer;
      answer.once("close", release);
      resolve(answer);
    });
    const onAbort = (): void => {
      const reason = abortReason(signal as AbortSignal);
      const error = reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError");
      message?.destroy(error);
      sent.destroy(error);
      reject(reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const headTimer = setTimeout(() => sent.destroy(timedOut(`the response head timed out after ${headMs} ms`)), headMs);
    sent.once("close", () => {
      clearTimeout(headTimer);
      if (message === undefined) release();
    });
    sent.once("socket", (socket: Socket) => limitConnect(sent, socket, connectMs));
    // Errors after the response's head reach its body stream; this listener only settles the promise once.
    sent.on("error", (error) => reject(signal?.aborted ? abortReason(signal) : fetchFailed(error)));
    sent.end(outgoing.body);
  });
}

/** Fails the request when its new socket has not connected, TLS handshake included, within `connectMs` (a reused one has). */
function limitConnect(request: ClientRequest, socket: Socket, connectMs: number): void {
  if (request.reusedSocket) return;
  const timer = setTimeout(() => request.destroy(timedOut(`connecting timed out after ${connectMs} ms`)), connectMs);
  const stop = (): void => clearTimeout(timer);
  socket.once("encrypted" in socket ? "secureConnect" : "connect", stop);
  socket.once("close", stop);
}

/** Fails a body silent for `bodyMs` while its reader waits; one paused because its reader is busy is not silent. */
function limitSilence(message: IncomingMessage, bodyMs: number): void {
  message.setTimeout(bodyMs, () => {
    if (!message.isPaused()) message.destroy(fetchFailed(timedOut(`the response body timed out after ${bodyMs} ms of silence`)));
  });
  message.on("resume", () => message.socket?.setTimeout(bodyMs));
}

/** An error whose words the SDK reads as a timeout (it retries those, and says so). */
function timedOut(message: string): Error {
  return Object.assign(new Error(message), { code: "ETIMEDOUT" });
}

/** As fetch fails: a TypeError whose cause says why. */
function fetchFailed(cause: unknown): TypeError {
  return new TypeError("fetch failed", { cause });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** A fetch Response over the incoming message: the body streams, inflated as fetch would. */
function toResponse(message: IncomingMessage, outgoing: Outgoing): Response {
  const status = message.statusCode ?? 0;
  if (status < 200 || status > 599) {
    message.destroy();
    throw fetchFailed(new Error(`the server answered with status ${status}`));
  }
  const headers = new Headers();
  for (let i = 0; i + 1 < message.rawHeaders.length; i += 2) headers.append(message.rawHeaders[i] as string, message.rawHeaders[i + 1] as string);
  const empty = NULL_BODY_STATUSES.has(status) || outgoing.method === "HEAD";
  if (empty) discard(message);
  const stream = empty ? null : (Readable.toWeb(decoded(message)) as ReadableStream<Uint8Array>);
  const response = new Response(stream, { status, statusText: message.statusMessage ?? "", headers });
  Object.defineProperty(response, "url", { value: outgoing.url.href });
  return response;
}

/** Reads a body nobody wants to its end, so the connection can serve the next request. */
function discard(message: IncomingMessage): void {
  message.on("error", () => undefined);
  message.resume();
}

/** The message's body, inflated when its content-encoding says gzip, deflate or br; cancelling it closes the message. */
function decoded(message: IncomingMessage): Readable {
  const encoding = message.headers["content-encoding"]?.trim().toLowerCase();
  // As lenient as fetch: a body cut short yields what arrived rather than an error.
  const lenient = { flush: constants.Z_SYNC_FLUSH, finishFlush: constants.Z_SYNC_FLUSH };
  const decoder =
    encoding === "gzip" || encoding === "x-gzip" ? createGunzip(lenient)
    : encoding === "deflate" ? createInflate(lenient)
    : encoding === "br" ? createBrotliDecompress({ flush: constants.BROTLI_OPERATION_FLUSH, finishFlush: constants.BROTLI_OPERATION_FLUSH })
    : undefined;
  if (decoder === undefined) return message;
  return pipeline(message, decoder, () => undefined);
}
