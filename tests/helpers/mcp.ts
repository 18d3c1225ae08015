// MCP test servers (the stdio fixture's command, a Streamable HTTP server on 127.0.0.1, an in-process McpServer) and process listings for orphan checks.
import { execFileSync } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { McpServer, createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import { IN_PROCESS_TOOLS, registerFixtureTools } from "../fixtures/mcp/tools.mjs";

/** The stdio fixture server script (tests/fixtures/mcp/stdio-server.mjs). */
export const STDIO_SERVER = fileURLToPath(new URL("../fixtures/mcp/stdio-server.mjs", import.meta.url));

/** The tools the HTTP server offers: the in-process ones but `add_tool` (a stateless server forgets it between requests). */
export const HTTP_TOOLS = IN_PROCESS_TOOLS.filter((name) => name !== "add_tool");

/**
 * The `command` and `args` that start the stdio fixture with `flags` (`--name NAME`, `--never-start`, `--hang`),
 * run by this Node itself so no PATH lookup is involved.
 */
export function stdioFixture(...flags: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [STDIO_SERVER, ...flags] };
}

/** An McpServer with the in-process fixture tools (echo, add, slow, image, fail, add_tool, the long name), not yet connected. */
export function inProcessServer(name = "inproc"): McpServer {
  const server = new McpServer({ name, version: "1.0.0" });
  registerFixtureTools(server, IN_PROCESS_TOOLS);
  return server;
}

/** One HTTP request the server received. */
export interface SeenRequest {
  method: string;
  path: string;
  /** Header names in lower case, as node:http gives them. */
  headers: IncomingHttpHeaders;
}

/** A running Streamable HTTP MCP server. */
export interface HttpMcpServer {
  /** The endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** Every request received so far, in order (to check `headers` and `${VAR}` substitution). */
  requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts a Streamable HTTP MCP server on 127.0.0.1 (a free port) with the HTTP fixture tools, served by
 * the server SDK's `createMcpHandler` (stateless: a fresh McpServer per request) behind a small node:http
 * adapter. Any path other than `/mcp` answers 404. `close` ends open connections too.
 */
export async function startHttpMcpServer(name = "http"): Promise<HttpMcpServer> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name, version: "1.0.0" });
    registerFixtureTools(server, HTTP_TOOLS);
    return server;
  });
  const requests: SeenRequest[] = [];
  const http = createServer((req, res) => {
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers });
    serve(handler, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** node:http to the web-standard handler and back, streaming the response body (SSE included). */
async function serve(handler: McpHttpHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!req.url?.startsWith("/mcp")) {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
  const aborted = new AbortController();
  res.on("close", () => aborted.abort());
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, {
    method: req.method ?? "GET", headers, signal: aborted.signal, ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  });
  const response = await handler.fetch(request);
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) for await (const chunk of response.body) res.write(chunk);
  res.end();
}

/** One row of `ps`. */
export interface ProcessRow {
  pid: number;
  pgid: number;
  ppid: number;
  /** `ps` state letters (`S`, `R`, ...); zombies are never listed. */
  stat: string;
  args: string;
}

/**
 * The live processes of a process group (a detached child's pid is its group id), from
 * `ps -eo pid,pgid,ppid,stat,args`. Zombies are left out: they are dead, only not yet reaped by a
 * parent that may never do it (PID 1 in a container).
 */
export function processesOf(pgid: number): ProcessRow[] {
  return listProcesses().filter((row) => row.pgid === pgid);
}

/** Whether `pid` is a live process (not a zombie). */
export function isAlive(pid: number): boolean {
  return listProcesses().some((row) => row.pid === pid);
}

/** Polls until no live process of any of `pgids` is left, or `timeoutMs` passes; resolves to what is left. */
export async function waitForGroupsGone(pgids: readonly number[], timeoutMs = 5_000): Promise<ProcessRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = listProcesses().filter((row) => pgids.includes(row.pgid));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every live process (zombies left out), from ps. */
export function listProcesses(): ProcessRow[] {
  const out = execFileSync("ps", ["-eo", "pid=,pgid=,ppid=,stat=,args="], { encoding: "utf8" });
  return out.split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!match || match[4]!.startsWith("Z")) return [];
    return [{ pid: Number(match[1]), pgid: Number(match[2]), ppid: Number(match[3]), stat: match[4]!, args: match[5]! }];
  });
}
