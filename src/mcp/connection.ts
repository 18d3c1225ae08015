// One MCP server as miniclaw holds it: connected (signed in where needed) with a timeout, its tools, resources and prompts, calls, one restart.
import type { Client, Transport } from "@modelcontextprotocol/client";
import type { ToolContext } from "../tools/define.js";
import { DEFAULT_MCP_CONNECT_TIMEOUT_MS, type McpServerConfig } from "./config.js";
import { causeOf, oneLine, seconds, whereOf } from "./failure.js";
import { CallScopes, CLIENT_CAPABILITIES, serveServerRequests, type McpHost } from "./host.js";
import { callTool, type McpCallResult } from "./call.js";
import { listCatalog, type McpCatalog } from "./catalog.js";
import { SignInNeeded } from "./credential-store.js";
import { AuthSession } from "./sign-in.js";
import type { StdioTransport } from "./stdio-transport.js";

export type { McpToolInfo } from "./catalog.js";

/** Where a server stands: `failed` and `stopped` say why in `error`. */
export type McpState = "disabled" | "idle" | "connecting" | "connected" | "failed" | "stopped";

const CLIENT_INFO = { name: "miniclaw", version: "0.1.0" };
type Sdk = typeof import("@modelcontextprotocol/client");

/**
 * One configured server. `connect()` never throws: a failure ends `failed` with one line saying where and why. A server
 * that dies is restarted once, before the next call, then stays `stopped`. Requests it sends during a call belong to that call.
 */
export class McpConnection {
  state: McpState;
  error: string | undefined;
  catalog: McpCatalog = { tools: [], resources: [], templates: [], prompts: [], instructions: undefined };
  /** Set when the server announced a changed list that `relist()` has not fetched yet. */
  stale = false;
  readonly calls = new CallScopes();
  private client: Client | undefined;
  private transport: Transport | undefined;
  /** The client of the start under way, stopped when the start times out. */
  private starting: Client | undefined;
  private auth: AuthSession | undefined;
  private closing = false;
  private restarts = 0;
  private connecting: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    /** From the hub: the children's environment (already scrubbed), the host, and who hears of a changed list. */
    private readonly deps: { childEnv: Record<string, string | undefined>; host: McpHost; onChanged: () => void },
  ) {
    this.state = config.enabled === false ? "disabled" : "idle";
    if (config.disabledReason !== undefined) this.error = config.disabledReason;
  }

  /** Connects and lists the catalog, once; later calls wait for the same attempt. */
  connect(): Promise<void> {
    if (this.state === "disabled") return Promise.resolve();
    this.connecting ??= this.open();
    return this.connecting;
  }

  /** Calls a tool for the call `context` answers; rejects with one line (the dispatcher makes it an `is_error` result). */
  async call(tool: string, args: Record<string, unknown>, context: ToolContext, offeredName: string): Promise<McpCallResult> {
    const client = await this.running();
    return this.calls.within(context, () => this.withSignIn(() => callTool(client, this, tool, args, context, offeredName)));
  }

  /** Runs a request of the server's own (resources, prompts) on the running client, signed in again if the server asks. */
  async request<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.running();
    return this.withSignIn(() => work(client));
  }

  /** Fetches the lists again after the server announced a change; a failure keeps the old lists. */
  async relist(): Promise<void> {
    if (!this.stale || !this.client) return;
    this.stale = false;
    this.catalog = await listCatalog(this.client).catch(() => this.catalog);
  }

  /** Tells the server its roots changed (it asks for them again); never throws. */
  async rootsChanged(): Promise<void> {
    await this.client?.sendRootsListChanged().catch(() => undefined);
  }

  /** Stops the server (kills a stdio server's process group) and the sign-in listener; never throws. */
  async close(): Promise<void> {
    this.closing = true;
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
    await this.auth?.close().catch(() => undefined);
    if (this.state !== "disabled") this.state = "stopped";
  }

  private async running(): Promise<Client> {
    if (this.state === "stopped" && this.restarts === 0 && !this.closing) {
      this.restarts++;
      this.connecting = undefined;
      await this.connect();
    }
    if (this.state !== "connected" || !this.client) throw new Error(`the MCP server "${this.name}" is not running: ${this.error ?? this.state}`);
    return this.client;
  }

  /** Runs `work`; when it failed because the server sent a person to sign in (or to a wider scope), finishes the sign-in and runs it once more. */
  private async withSignIn<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const code = this.auth?.takeCode();
      if (!code) throw error;
      await finishAuth(this.transport, await code);
      return work();
    }
  }

  private async open(): Promise<void> {
    this.state = "connecting";
    // The MCP client (its SDK, validators and schemas) is heavy: it loads only when a server is configured.
    const sdk = await import("@modelcontextprotocol/client");
    const limit = this.config.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS;
    try {
      if (this.config.type === "http" || this.config.type === "sse") this.auth = await AuthSession.open(this.name, this.config, this.deps.host, sdk);
      await withTimeout(this.withSignIn(() => this.start(sdk)), limit, `did not connect within ${seconds(limit)}`, () => this.auth?.signingIn() === true);
    } catch (error) {
      // A start still under way (a server that never answered) is stopped: its process must not outlive the attempt.
      await this.starting?.close().catch(() => undefined);
      this.state = "failed";
      this.error = this.failureOf(error);
      return;
    }
    this.state = "connected";
    this.error = undefined;
  }

  private async start(sdk: Sdk): Promise<void> {
    const client = new sdk.Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES });
    this.starting = client;
    serveServerRequests(client, this.name, this.deps.host, this.calls);
    // Marked at once: a server announces the change before the result of the call that made it, so the lists are
    // fetched again before the next request (the SDK's own refresh would come later, debounced).
    for (const method of ["notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"] as const) {
      client.setNotificationHandler(method, () => {
        this.stale = true;
        this.deps.onChanged();
      });
    }
    const { transport, serverSide } = await this.openTransport(sdk);
    this.transport = transport;
    try {
      if (serverSide && this.config.type === "sdk") await this.config.server.connect(serverSide);
      await client.connect(transport);
      this.catalog = await listCatalog(client);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    client.onclose = () => this.died(client, transport);
    this.client = client;
  }

  private died(client: Client, transport: Transport): void {
    if (this.closing || this.client !== client) return;
    this.client = undefined;
    this.state = "stopped";
    this.error = `the server stopped${isStdio(transport) ? exitText(transport) : ""}`;
  }

  private async openTransport(sdk: Sdk): Promise<{ transport: Transport; serverSide?: Transport }> {
    const config = this.config;
    if ("url" in config) {
      const options = { requestInit: { headers: config.headers ?? {} }, ...(this.auth?.provider && { authProvider: this.auth.provider }) };
      const url = new URL(config.url);
      return { transport: config.type === "sse" ? new sdk.SSEClientTransport(url, options) : new sdk.StreamableHTTPClientTransport(url, options) };
    }
    if (!("command" in config)) {
      const [transport, serverSide] = sdk.InMemoryTransport.createLinkedPair();
      return { transport, serverSide };
    }
    const { StdioTransport } = await import("./stdio-transport.js");
    const env = { ...this.deps.childEnv, ...config.env };
    return { transport: new StdioTransport({ command: config.command, args: config.args ?? [], env, ...(config.cwd !== undefined && { cwd: config.cwd }) }) };
  }

  /** One line: where the server is and why it failed, with a stdio server's stderr. */
  private failureOf(error: unknown): string {
    const where = whereOf(this.config);
    const signIn = error instanceof SignInNeeded || /\(401\)$/.test(causeOf(error)) || (error as { name?: unknown })?.name === "UnauthorizedError";
    if (signIn) return `${where}: needs sign-in: run "miniclaw mcp login ${this.name}"`;
    const stderr = this.transport && isStdio(this.transport) ? oneLine(this.transport.stderrTail) : "";
    return `${where}: ${causeOf(error)}${stderr ? ` (stderr: ${stderr.slice(-300)})` : ""}`;
  }
}

/** `work`, or a rejection after `ms`; the clock stops while a person signs in (`paused`), since they take their time. */
function withTimeout<T>(work: Promise<T>, ms: number, message: string, paused: () => boolean): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const tick = (): void => void (paused() ? (timer = setTimeout(tick, ms)) : reject(new Error(message)));
    timer = setTimeout(tick, ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Hands the code the browser brought back to the http transport that started the sign-in, which trades it for tokens. */
async function finishAuth(transport: Transport | undefined, code: string): Promise<void> {
  if (!transport || !("finishAuth" in transport) || typeof transport.finishAuth !== "function") throw new Error("this transport cannot sign in");
  await (transport.finishAuth as (code: string) => Promise<void>).call(transport, code);
}

function isStdio(transport: Transport): transport is StdioTransport {
  return "stderrTail" in transport;
}

/** How a stdio server ended, as ` (exit code 1)` or ` (killed by SIGKILL)`. */
function exitText({ exit }: StdioTransport): string {
  return !exit ? "" : exit.signal ? ` (killed by ${exit.signal})` : ` (exit code ${String(exit.code)})`;
}
