// One MCP server as miniclaw holds it: connected with a timeout, its tool list, calls with a timeout, one restart after a death.
import type { Client, Transport } from "@modelcontextprotocol/client";
import { DEFAULT_MCP_CONNECT_TIMEOUT_MS, DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig } from "./config.js";
import type { StdioTransport } from "./stdio-transport.js";
import type { McpCallResult } from "./mcp-result.js";

/** A tool as the server lists it (the parts miniclaw uses). */
export type McpToolInfo = { name: string; title?: string | undefined; description?: string | undefined; inputSchema: Record<string, unknown> };

/** Where a server stands: `failed` and `stopped` say why in `error`. */
export type McpState = "disabled" | "idle" | "connecting" | "connected" | "failed" | "stopped";

const CLIENT_INFO = { name: "miniclaw", version: "0.1.0" };

/**
 * One configured server. `connect()` never throws: a server that cannot start or answer in time ends `failed` with the
 * reason. A server that dies is restarted once, before the next call; after a second death it stays `stopped`. `deps`:
 * the environment of children (already scrubbed), and who hears of a `tools/list_changed`.
 */
export class McpConnection {
  state: McpState;
  error: string | undefined;
  tools: McpToolInfo[] = [];
  /** Set when the server announced a changed tool list that `relist()` has not fetched yet. */
  stale = false;
  private client: Client | undefined;
  private closing = false;
  private restarts = 0;
  private connecting: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly deps: { childEnv: Record<string, string | undefined>; onToolsChanged: () => void },
  ) {
    this.state = config.enabled === false ? "disabled" : "idle";
  }

  /** Connects and lists the tools, once; later calls wait for the same attempt. */
  connect(): Promise<void> {
    if (this.state === "disabled") return Promise.resolve();
    this.connecting ??= this.open();
    return this.connecting;
  }

  /** Calls a tool with the server's timeout; `signal` cancels it (the server is told). Rejects with a one-line reason. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    if (this.state === "stopped" && this.restarts === 0) {
      this.restarts++;
      this.connecting = undefined;
      await this.connect();
    }
    const client = this.client;
    if (this.state !== "connected" || !client) throw new Error(`the MCP server "${this.name}" is not running: ${this.error ?? this.state}`);
    const timeout = this.config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
    try {
      return (await client.callTool({ name: tool, arguments: args }, { signal, timeout })) as McpCallResult;
    } catch (error) {
      if (signal.aborted) throw new Error(`cancelled: the call to ${this.name}/${tool} was interrupted`);
      const message = error instanceof Error ? error.message : String(error);
      if (/timed? ?out/i.test(message)) throw new Error(`the MCP server "${this.name}" did not answer ${tool} within ${seconds(timeout)}; the call was cancelled`);
      throw new Error(`the MCP server "${this.name}" failed during ${tool}: ${oneLine(message)}`);
    }
  }

  /** Fetches the tool list again after the server announced a change; a failure keeps the old list. */
  async relist(): Promise<void> {
    if (!this.stale) return;
    this.stale = false;
    try {
      if (this.client) this.tools = (await this.client.listTools()).tools.map(toolInfo);
    } catch {
      // The old list stays; a call of a tool that is gone is answered by the server.
    }
  }

  /** Stops the server (kills a stdio server's process group); never throws. */
  async close(): Promise<void> {
    this.closing = true;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    if (this.state !== "disabled") this.state = "stopped";
  }

  private async open(): Promise<void> {
    this.state = "connecting";
    // The MCP client (its SDK, validators and schemas) is heavy: it loads only when a server is configured.
    const sdk = await import("@modelcontextprotocol/client");
    const client = new sdk.Client(CLIENT_INFO);
    // Marked at once: a server announces the change before the result of the call that made it, so the list is
    // fetched again before the next request (the SDK's own refresh would come later, debounced).
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      this.stale = true;
      this.deps.onToolsChanged();
    });
    const { transport, serverSide } = await this.transport(sdk);
    const limit = this.config.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS;
    const connecting = async (): Promise<void> => {
      // An in-process server listens on the other end of the linked pair before the client speaks.
      if (serverSide && this.config.type === "sdk") await this.config.server.connect(serverSide);
      await client.connect(transport);
      this.tools = (await client.listTools()).tools.map(toolInfo);
    };
    try {
      await withTimeout(connecting(), limit, `did not connect within ${seconds(limit)}`);
    } catch (error) {
      await client.close().catch(() => undefined);
      this.state = "failed";
      this.error = failureOf(error, transport);
      return;
    }
    client.onclose = () => this.died(client, transport);
    this.client = client;
    this.state = "connected";
    this.error = undefined;
  }

  /** A server that went away on its own: stopped, to be restarted once before the next call. */
  private died(client: Client, transport: Transport): void {
    if (this.closing || this.client !== client) return;
    this.client = undefined;
    this.state = "stopped";
    this.error = `the server stopped${isStdio(transport) ? exitText(transport) : ""}`;
  }

  private async transport(sdk: typeof import("@modelcontextprotocol/client")): Promise<{ transport: Transport; serverSide?: Transport }> {
    const config = this.config;
    if (config.type === "http") return { transport: new sdk.StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} } }) };
    if (config.type === "sdk") {
      const [transport, serverSide] = sdk.InMemoryTransport.createLinkedPair();
      return { transport, serverSide };
    }
    const { StdioTransport } = await import("./stdio-transport.js");
    const env = { ...this.deps.childEnv, ...config.env };
    return { transport: new StdioTransport({ command: config.command, args: config.args ?? [], env, ...(config.cwd !== undefined && { cwd: config.cwd }) }) };
  }
}

function toolInfo({ name, title, description, inputSchema }: McpToolInfo & { inputSchema: unknown }): McpToolInfo {
  return { name, title, description, inputSchema: typeof inputSchema === "object" && inputSchema !== null ? (inputSchema as Record<string, unknown>) : {} };
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Why a server failed to connect, in one line, with what a stdio server wrote on stderr. */
function failureOf(error: unknown, transport: Transport): string {
  const message = oneLine(error instanceof Error ? error.message : String(error));
  const stderr = isStdio(transport) ? oneLine(transport.stderrTail) : "";
  return stderr ? `${message} (stderr: ${stderr.slice(-300)})` : message;
}

/** A stdio server's transport: the one that keeps its stderr and exit. */
function isStdio(transport: Transport): transport is StdioTransport {
  return "stderrTail" in transport;
}

/** How a stdio server ended, as ` (exit code 1)` or ` (killed by SIGKILL)`. */
function exitText({ exit }: StdioTransport): string {
  return !exit ? "" : exit.signal ? ` (killed by ${exit.signal})` : ` (exit code ${String(exit.code)})`;
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;
const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();

