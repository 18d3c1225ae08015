// The client's transport over node:http: answers as fetch does (streamed bodies, aborts, failures, compression,
// redirects), keeps connections alive without holding the process open, and carries whole turns.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { createClient } from "../../src/model/client.js";
import { createNodeFetch, nodeFetch } from "../../src/model/http-fetch.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { closedPort } from "../helpers/ports.js";
import { TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";

interface TestServer {
  url: string;
  /** TCP connections accepted so far. */
  connections: number;
  /** Each request's method, URL, headers and body, in arrival order. */
  requests: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: string }>;
  close(): Promise<void>;
}

const servers: Array<Server | import("node:https").Server | import("node:net").Server> = [];
let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
  for (const server of servers.splice(0)) {
    if ("closeAllConnections" in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  const sockets = new Set<Socket>();
  const state: TestServer = { url: "", connections: 0, requests: [], close: async () => undefined };
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      state.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      handle(req, res);
    });
  });
  server.on("connection", (socket) => {
    state.connections++;
    sockets.add(socket);
  });
  // Idle connections stay open until the test ends: a client whose idle socket held its process would not exit.
  server.keepAliveTimeout = 60_000;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

describe("nodeFetch", () => {
  it("sends the method, headers and body with its length, and answers with status, headers and body", async () => {
    const server = await serve((_req, res) => res.writeHead(201, "Made", { "x-answer": "42", "content-type": "text/plain" }).end("made it"));
    const response = await nodeFetch(`${server.url}/v1/things?q=1`, { method: "POST", headers: { "x-key": "k", "content-type": "application/json" }, body: '{"a":"é"}' });
    expect({ status: response.status, statusText: response.statusText, answer: response.headers.get("x-answer"), url: response.url }).toEqual({
      status: 201, statusText: "Made", answer: "42", url: `${server.url}/v1/things?q=1`,
    });
    expect(await response.text()).toBe("made it");
    const [sent] = server.requests;
    expect({ method: sent?.method, url: sent?.url, key: sent?.headers["x-key"], length: sent?.headers["content-length"], chunked: sent?.headers["transfer-encoding"], body: sent?.body }).toEqual({
      method: "POST", url: "/v1/things?q=1", key: "k", length: String(Buffer.byteLength('{"a":"é"}')), chunked: undefined, body: '{"a":"é"}',
    });
  });

  it("streams the body as it arrives instead of waiting for its end", async () => {
    let finish: () => void = () => undefined;
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: one\n\n");
      finish = () => res.end("event: two\n\n");
    });
    const response = await nodeFetch(server.url);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("event: one\n\n");
    finish();
    const second = await reader.read();
    expect(new TextDecoder().decode(second.value)).toBe("event: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  it("rejects with the AbortError when aborted before the answer, and errors the body when aborted during it", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/slow-head") return;
      res.writeHead(200).write("part");
    });
    const before = new AbortController();
    const pending = nodeFetch(`${server.url}/slow-head`, { signal: before.signal });
    setTimeout(() => before.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });

    const during = new AbortController();
    const response = await nodeFetch(`${server.url}/body`, { signal: during.signal });
    const reader = response.body!.getReader();
    await reader.read();
    during.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });

    const already = new AbortController();
    already.abort();
    await expect(nodeFetch(server.url, { signal: already.signal })).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects a refused connection as fetch does: 'fetch failed' with the system's error as its cause", async () => {
    const port = await closedPort();
    const failure = await nodeFetch(`http://127.0.0.1:${port}/`).then(() => undefined, (error: unknown) => error as TypeError & { cause: NodeJS.ErrnoException });
    expect({ type: failure?.constructor.name, message: failure?.message, code: failure?.cause.code }).toEqual({ type: "TypeError", message: "fetch failed", code: "ECONNREFUSED" });
  });

  it("errors the body when the connection drops in the middle of it", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "100" }).write("only part");
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const response = await nodeFetch(server.url);
    await expect(response.text()).rejects.toThrow();
  });

  it("decompresses a gzip body (one cut short as far as it goes), and gives no body for 204", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/none") return res.writeHead(204).end();
      if (req.url === "/cut") return res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync("hello world").subarray(0, -8));
      res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync("squeezed text"));
    });
    expect(await (await nodeFetch(server.url)).text()).toBe("squeezed text");
    expect(await (await nodeFetch(`${server.url}/cut`)).text()).toBe("hello world");
    const empty = await nodeFetch(`${server.url}/none`);
    expect({ status: empty.status, body: empty.body }).toEqual({ status: 204, body: null });
  });

  it("follows redirects once each: 307 keeps the method and body, 303 turns a POST into a GET", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/keep") return res.writeHead(307, { location: "/kept" }).end();
      if (req.url === "/see-other") return res.writeHead(303, { location: "/seen" }).end();
      res.writeHead(200).end(`at ${req.url}`);
    });
    expect(await (await nodeFetch(`${server.url}/keep`, { method: "POST", body: "x" })).text()).toBe("at /kept");
    expect(await (await nodeFetch(`${server.url}/see-other`, { method: "POST", body: "y", headers: { "content-type": "text/plain" } })).text()).toBe("at /seen");
    expect(server.requests.map((r) => [r.method, r.url, r.body, r.headers["content-type"]])).toEqual([
      ["POST", "/keep", "x", undefined], ["POST", "/kept", "x", undefined], ["POST", "/see-other", "y", "text/plain"], ["GET", "/seen", "", undefined],
    ]);
  });

  it("sends no credential to another origin a redirect names", async () => {
    const other = await serve((_req, res) => res.end("elsewhere"));
    const server = await serve((_req, res) => res.writeHead(302, { location: `${other.url}/landing` }).end());
    const headers = { "x-api-key": "sk-secret", authorization: "Bearer secret", "x-note": "kept" };
    expect(await (await nodeFetch(server.url, { headers })).text()).toBe("elsewhere");
    const landed = other.requests[0]?.headers;
    expect({ key: landed?.["x-api-key"], auth: landed?.authorization, note: landed?.["x-note"] }).toEqual({ key: undefined, auth: undefined, note: "kept" });
  });

  it("refuses a redirect to another scheme or to an address that does not parse", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/ftp") return res.writeHead(302, { location: "ftp://127.0.0.1/file" }).end();
      if (req.url === "/broken") return res.writeHead(302, { location: "http://[" }).end();
      res.end("fine");
    });
    const causeOf = (url: string): Promise<string | undefined> => nodeFetch(url).then(() => undefined, (error: TypeError & { cause: Error }) => `${error.message}: ${error.cause.message}`);
    expect(await causeOf(`${server.url}/ftp`)).toBe("fetch failed: refused a redirect to a ftp: address");
    expect(await causeOf(`${server.url}/broken`)).toBe('fetch failed: a redirect to an address that does not parse: "http://["');
    expect(await (await nodeFetch(server.url)).text()).toBe("fine");
  });

  it("sends a stream body through the global fetch", async () => {
    const server = await serve((req, res) => res.writeHead(200).end(`at ${req.url}`));
    const stream = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode("streamed")), controller.close()) });
    const init = { method: "POST", body: stream, duplex: "half" } as RequestInit;
    expect(await (await nodeFetch(`${server.url}/up`, init)).text()).toBe("at /up");
    expect(server.requests.at(-1)?.body).toBe("streamed");
  });

  it("honours an abort made right after the call, before the request is out", async () => {
    const server = await serve((_req, res) => setTimeout(() => res.end("too late"), 300));
    const controller = new AbortController();
    const pending = nodeFetch(server.url, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  it("closes a kept-alive connection left idle, and fails a body that stays silent", async () => {
    const closed: number[] = [];
    const server = await serve((req, res) => {
      res.socket?.once("close", () => closed.push(Date.now()));
      if (req.url === "/silent") return res.writeHead(200).write("a start");
      res.end("ok");
    });
    const limited = createNodeFetch({ idleMs: 100, bodyMs: 200 });
    expect(await (await limited(server.url)).text()).toBe("ok");
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(closed.length).toBe(1);
    const failure = await (await limited(`${server.url}/silent`)).text().then(() => undefined, (error: unknown) => error as TypeError & { cause: Error });
    expect({ message: failure?.message, cause: failure?.cause.message }).toEqual({ message: "fetch failed", cause: "the response body timed out after 200 ms of silence" });
    expect(server.connections).toBe(2);
  });

  it("lets a reader pause longer than the silence limit, while the server keeps sending", async () => {
    const big = "x".repeat(4 * 1024 * 1024);
    const server = await serve((_req, res) => res.end(big));
    const response = await createNodeFetch({ bodyMs: 200 })(server.url);
    const reader = response.body!.getReader();
    let length = (await reader.read()).value?.length ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 600));
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) length += chunk.value.length;
    expect(length).toBe(big.length);
  });

  it("times out a response head that never comes and a TLS handshake that never ends, in words the SDK reads as a timeout", async () => {
    const server = await serve(() => undefined);
    const failure = await createNodeFetch({ headMs: 200 })(server.url).then(() => undefined, (error: TypeError & { cause: Error }) => error.cause.message);
    expect(failure).toBe("the response head timed out after 200 ms");

    const accepted: Socket[] = [];
    const silent = createNetServer((socket) => accepted.push(socket));
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const baseURL = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const client = new Anthropic({ apiKey: "test", baseURL, maxRetries: 0, fetch: createNodeFetch({ connectMs: 200 }) });
    const error = await client.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).then(() => undefined, (e: unknown) => e as Error);
    expect(error?.constructor.name).toBe("APIConnectionTimeoutError");
    for (const socket of accepted) socket.destroy();
  });

  it("closes the connection when a compressed body is cancelled", async () => {
    let open = 0;
    const server = await serve((_req, res) => {
      open++;
      res.socket?.once("close", () => open--);
      res.writeHead(529, { "content-encoding": "gzip" }).write(gzipSync("x".repeat(100)).subarray(0, 20));
    });
    const response = await nodeFetch(server.url);
    await response.body!.cancel();
    for (let i = 0; i < 100 && open > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(open).toBe(0);
  });

  it("keeps one connection alive across requests", async () => {
    const server = await serve((_req, res) => res.end("ok"));
    for (let i = 0; i < 3; i++) expect(await (await nodeFetch(server.url)).text()).toBe("ok");
    expect(server.connections).toBe(1);
  });

  it("lets a process end on its own while its idle connection stays open", async () => {
    const server = await serve((_req, res) => res.end("ok"));
    expect(await fetchInChild(server.url)).toEqual({ code: 0, signal: null, stdout: "ok" });
  });

  it("speaks https, refuses a certificate the process does not trust, and never follows a redirect to plain http", async () => {
    const plain = await serve((_req, res) => res.end("in the clear"));
    const tls = { key: await readFile(join(TLS, "localhost.key")), cert: await readFile(join(TLS, "localhost.crt")) };
    const server = createHttpsServer(tls, (req, res) => (req.url === "/down" ? res.writeHead(302, { location: plain.url }).end() : res.end("over tls")));
    server.keepAliveTimeout = 60_000;
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const trusting = { NODE_EXTRA_CA_CERTS: join(TLS, "localhost.crt") };
    expect(await fetchInChild(`${origin}/`, trusting)).toEqual({ code: 0, signal: null, stdout: "over tls" });
    const untrusted = await fetchInChild(`${origin}/`);
    expect({ code: untrusted.code, stdout: untrusted.stdout }).toEqual({ code: 1, stdout: "fetch failed: DEPTH_ZERO_SELF_SIGNED_CERT" });
    const downgrade = await fetchInChild(`${origin}/down`, trusting);
    expect({ code: downgrade.code, stdout: downgrade.stdout, reached: plain.requests.length }).toEqual({
      code: 1, stdout: `fetch failed: refused a redirect from ${origin} to ${plain.url}`, reached: 0,
    });
  });
});

const TLS = fileURLToPath(new URL("../fixtures/tls/", import.meta.url));

/**
 * Runs nodeFetch(url) in a new Node process with `env` added, which prints the body, or the error and its
 * cause's code and exits 1; resolves when the process ends on its own (killed after 15 s).
 */
async function fetchInChild(url: string, env: Record<string, string> = {}): Promise<{ code: number | null; signal: string | null; stdout: string }> {
  const module = fileURLToPath(new URL("../../src/model/http-fetch.ts", import.meta.url));
  const script = `const { nodeFetch } = await import(${JSON.stringify(module)});
    try { process.stdout.write(await (await nodeFetch(${JSON.stringify(url)})).text()); }
    catch (error) { process.stdout.write(error.message + ": " + (error.cause?.code ?? error.cause?.message)); process.exitCode = 1; }`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, ...env } });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on("exit", (c, s) => resolve([c, s])));
  clearTimeout(timer);
  return { code, signal, stdout };
}

describe("a client from createClient", () => {
  it("streams a turn over node:http, and names the address of a refused connection", async () => {
    model = await startScriptedModel([{ reply: "streamed answer" }]);
    const env = { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: model.baseURL };
    const events: AgentEvent[] = [];
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(model, ws, events, { client: createClient({ env, maxRetries: 0 }) }));
    expect({ stop: result.stopReason, text: result.text }).toEqual({ stop: "end_turn", text: "streamed answer" });
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(0);
    expect(model.rejected).toEqual([]);
    // Node's fetch (undici) adds sec-fetch-mode to every request; node:http sends only what it is given.
    expect(model.requests[0]?.headers["sec-fetch-mode"]).toBeUndefined();

    const port = await closedPort();
    const refused = createClient({ env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}` }, maxRetries: 0 });
    const failed = await runAgentTurn("k2", "hi", TEST_AGENT, turnOptions(model, ws, [], { client: refused }));
    expect({ stop: failed.stopReason, error: failed.error }).toEqual({ stop: "error", error: `Connection error: connect ECONNREFUSED 127.0.0.1:${port}` });
  });
});
