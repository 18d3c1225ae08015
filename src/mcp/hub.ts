// The MCP servers of one process: connected once, in parallel; their tools as miniclaw tools, in a stable order, gated like any other.
import type Anthropic from "@anthropic-ai/sdk";
import * as z from "zod";
import { scrubEnv } from "../gate/secret-env.js";
import type { AnyTool, Tool } from "../tools/define.js";
import type { ToolSource } from "../tools/source.js";
import { parseMcpConfig, type McpServersConfig } from "./config.js";
import { McpConnection, type McpState, type McpToolInfo } from "./connection.js";
import { toToolOutput } from "./mcp-result.js";
import { matchesToolGlob, mcpToolNames } from "./names.js";

/** One server as `miniclaw mcp` and `/mcp` show it. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sdk";
  state: McpState;
  error?: string;
  /** The miniclaw names of its tools that are offered (after include and exclude). */
  tools: string[];
  /** Those the user declared read-only (`readOnly` in mcp.json): they run unasked. */
  readOnly: string[];
}

/** What a hub takes from its process: the environment of stdio servers, already without secrets; one line per server left out or tool not offered (must not throw). */
export type McpHubOptions = { childEnv: Record<string, string | undefined>; onWarning?: (message: string) => void };

/** Where `${VAR}` is read and what stdio servers inherit, scrubbed of secrets (default the process's environment); the warnings, as for a hub. */
export type ConnectMcpOptions = { env?: Record<string, string | undefined>; onWarning?: (message: string) => void };

/**
 * Checks the servers (the `mcpServers` shape of mcp.json, in-process `{ type: "sdk", server }` too) and connects them,
 * for a library caller whose turns share them: pass the hub in the runtime's `toolSources`, and `close()` it when done.
 * Throws a one-line ConfigError for a bad entry; a server that fails to connect is a warning, not an error.
 */
export async function connectMcpServers(servers: McpServersConfig, options: ConnectMcpOptions = {}): Promise<McpHub> {
  const env = options.env ?? process.env;
  const hub = hubFor(parseMcpConfig(servers, "the mcpServers option", env), env, options.onWarning);
  await hub.connect();
  return hub;
}

/** A hub over checked servers whose stdio children get `env` without its secrets (their own `env` entries add to it). */
export function hubFor(config: McpServersConfig, env: Record<string, string | undefined>, onWarning?: (message: string) => void): McpHub {
  return new McpHub(config, { childEnv: scrubEnv(env), ...(onWarning !== undefined && { onWarning }) });
}

/** Any JSON object: MCP servers check their own input, so the dispatcher only insists on an object. */
const ANY_OBJECT = z.record(z.string(), z.unknown());

/**
 * The MCP servers of a process (the REPL, `run`, cron, or a library caller), as a tool source. `connect()` starts every
 * enabled server at once; one that fails is left out with one warning. `list()`, called before each request, connects
 * on first use and takes in the tool lists servers announced as changed: between requests, never during one.
 */
export class McpHub implements ToolSource {
  private readonly connections: McpConnection[];
  private connected: Promise<void> | undefined;
  private changed = false;
  private current: AnyTool[] = [];
  private readonly warned = new Set<string>();

  constructor(config: McpServersConfig, private readonly options: McpHubOptions) {
    const onToolsChanged = (): void => void (this.changed = true);
    this.connections = Object.keys(config)
      .sort()
      .map((name) => new McpConnection(name, config[name]!, { childEnv: options.childEnv, onToolsChanged }));
  }

  /** Connects every enabled server, in parallel, once; never throws (failures are warnings). */
  connect(): Promise<void> {
    this.connected ??= (async () => {
      await Promise.all(this.connections.map((c) => c.connect()));
      for (const c of this.connections) if (c.state === "failed") this.warn(`MCP server "${c.name}" left out: ${c.error ?? "it failed"}`);
      this.current = this.build();
    })();
    return this.connected;
  }

  /** The tools of every connected server, by server name then tool name (stable, for the prompt cache). */
  tools(): AnyTool[] {
    return this.current;
  }

  /** The tools for the next request: connected first, the lists servers announced as changed fetched again. */
  async list(): Promise<readonly AnyTool[]> {
    await this.connect();
    if (this.changed) {
      this.changed = false;
      await Promise.all(this.connections.map((c) => c.relist()));
      this.current = this.build();
    }
    return this.current;
  }

  /** Each server as `miniclaw mcp` and `/mcp` show it. */
  status(): McpServerStatus[] {
    return this.connections.map((c) => {
      const offered = this.offered(c);
      return {
        name: c.name,
        transport: c.config.type === "http" || c.config.type === "sdk" ? c.config.type : "stdio",
        state: c.state,
        ...(c.error !== undefined && { error: c.error }),
        tools: offered.map((t) => t.name),
        readOnly: offered.filter((t) => t.access === "read").map((t) => t.name),
      };
    });
  }

  /** Stops every server (stdio servers' process groups are killed); never throws. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  private build(): AnyTool[] {
    return this.connections.flatMap((c) => (c.state === "connected" || c.state === "stopped" ? this.offered(c) : []));
  }

  /** One server's tools after include and exclude; tools whose names clash are left out, with a warning naming both. */
  private offered(c: McpConnection): AnyTool[] {
    const { include, exclude } = c.config.tools ?? {};
    const { names, clashes } = mcpToolNames(c.name, c.tools.map((t) => t.name));
    for (const [a, b, name] of clashes) this.warn(`MCP server "${c.name}": tools "${a}" and "${b}" both become ${name}; neither is offered`);
    return c.tools
      .filter((t) => {
        const name = names.get(t.name);
        return name !== undefined && (include === undefined || matchesToolGlob(t.name, name, include)) && !matchesToolGlob(t.name, name, exclude);
      })
      .sort((a, b) => (names.get(a.name)! < names.get(b.name)! ? -1 : 1))
      .map((t) => mcpTool(c, t, names.get(t.name)!));
  }

  /** Each warning once; a throwing sink must not stop the servers. */
  private warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    try {
      this.options.onWarning?.(message);
    } catch {}
  }
}

/**
 * One MCP tool as a miniclaw tool: read-only only when the user says so in `readOnly` (a server's own annotations come
 * from a program the user may not control); every other call goes to the gate. The schema's `$schema` dialect is dropped.
 */
function mcpTool(c: McpConnection, info: McpToolInfo, name: string): Tool<Record<string, unknown>> {
  const { $schema: _dialect, ...schema } = info.inputSchema;
  return {
    name,
    description: info.description ?? info.title ?? `${info.name}, a tool of the MCP server ${c.name}`,
    input: ANY_OBJECT,
    inputSchema: { ...schema, type: "object" } as Anthropic.Tool.InputSchema,
    access: matchesToolGlob(info.name, name, c.config.readOnly ?? []) ? "read" : "ask",
    run: async (input, context) => toToolOutput(await c.call(info.name, input, context.signal)),
  };
}
