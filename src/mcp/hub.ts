// The MCP servers of one process: connected once, in parallel; their tools as miniclaw tools, in a stable order, gated like any other.
import { scrubEnv } from "../gate/secret-env.js";
import type { AnyTool } from "../tools/define.js";
import type { ToolSource } from "../tools/source.js";
import { parseMcpConfig, type McpServersConfig } from "./config.js";
import { McpConnection, type McpState } from "./connection.js";
import type { Elicit, McpHost, SignIn, ToolSearchMode } from "./host.js";
import { instructionsNote, mcpTool, READ_RESOURCE_TOOL, readResourceTool, type ServerToolParts } from "./mcp-tools.js";
import { matchesToolGlob, mcpToolNames } from "./names.js";
import { promptCommands, type McpPromptCommand } from "./prompts.js";

/** One server as `miniclaw mcp` and `/mcp` show it. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse" | "sdk";
  state: McpState;
  error?: string;
  /** The offered tools' miniclaw names (after include and exclude). */
  tools: string[];
  /** Those the user declared read-only (`readOnly` in mcp.json): they run unasked. */
  readOnly: string[];
  resources: number;
  prompts: number;
}

/** `childEnv` is already without secrets; `onWarning` gets one line per server left out or tool not offered, and must not throw. */
export type McpHubOptions = { childEnv: Record<string, string | undefined>; onWarning?: (message: string) => void } & McpHubHost;

/** The host's parts a hub takes, and whether failures are warnings too (default true). */
export type McpHubHost = Partial<McpHost> & { reportFailures?: boolean };

/** Where `${VAR}` is read and what stdio servers inherit, scrubbed of secrets (default the process's environment); the warnings, and the host's parts. */
export type ConnectMcpOptions = { env?: Record<string, string | undefined>; onWarning?: (message: string) => void; roots?: readonly string[]; elicit?: Elicit; signIn?: SignIn; credentialsFile?: string; toolSearch?: ToolSearchMode };

/** Past this many MCP tools, or this many characters of their definitions, `auto` defers them to the API's tool search. */
export const TOOL_SEARCH_MIN_TOOLS = 30;
export const TOOL_SEARCH_MIN_CHARS = 40_000;

/**
 * Checks and connects servers for a library caller: pass the hub in the runtime's `toolSources`, and `close()` it when
 * done. Throws a one-line ConfigError for a bad entry; a server that fails to connect is a warning, not an error.
 */
export async function connectMcpServers(servers: McpServersConfig, options: ConnectMcpOptions = {}): Promise<McpHub> {
  const env = options.env ?? process.env;
  const notes: string[] = [];
  const { env: _env, ...rest } = options;
  const hub = new McpHub(parseMcpConfig(servers, "the mcpServers option", env, undefined, notes), { ...rest, childEnv: scrubEnv(env) });
  notes.forEach((note) => hub.warn(note));
  await hub.connect();
  return hub;
}

/** A hub over checked servers whose stdio children get `env` without its secrets (their own `env` entries add to it). */
export function hubFor(config: McpServersConfig, env: Record<string, string | undefined>, onWarning?: (message: string) => void, host: McpHubHost = {}): McpHub {
  return new McpHub(config, { ...host, childEnv: scrubEnv(env), ...(onWarning !== undefined && { onWarning }) });
}

/**
 * The MCP servers of a process as a tool source; one that fails to connect is left out with one warning. `list()`
 * connects on first use and takes in changed lists between requests, never during one.
 */
export class McpHub implements ToolSource {
  private readonly connections: McpConnection[];
  private readonly host: McpHost;
  private connected: Promise<void> | undefined;
  private changed = false;
  private current: AnyTool[] = [];
  private readonly warned = new Set<string>();

  constructor(config: McpServersConfig, private readonly options: McpHubOptions) {
    const { roots = [], toolSearch = "auto", elicit, signIn, credentialsFile } = options;
    this.host = { roots, toolSearch, ...(elicit && { elicit }), ...(signIn && { signIn }), ...(credentialsFile !== undefined && { credentialsFile }) };
    const onChanged = (): void => void (this.changed = true);
    this.connections = Object.keys(config)
      .sort()
      .map((name) => new McpConnection(name, config[name]!, { childEnv: options.childEnv, host: this.host, onChanged }));
  }

  /** Connects every enabled server, in parallel, once; never throws (failures are warnings, as are servers left out). */
  connect(): Promise<void> {
    this.connected ??= (async () => {
      for (const c of this.connections) if (c.config.disabledReason !== undefined && this.options.reportFailures !== false) this.warn(`MCP server "${c.name}" left out: ${c.config.disabledReason}`);
      await Promise.all(this.connections.map((c) => c.connect()));
      if (this.options.reportFailures !== false) for (const c of this.connections) if (c.state === "failed") this.warn(`MCP server "${c.name}" left out: ${c.error ?? "it failed"}`);
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

  /** The prompts of the connected servers as REPL commands (`/mcp__server__prompt`), sorted. */
  prompts(): McpPromptCommand[] {
    return promptCommands(this.connections.filter((c) => c.state === "connected"));
  }

  /** Sets the folders servers may work in and tells the connected servers they changed. */
  async setRoots(roots: readonly string[]): Promise<void> {
    this.host.roots = [...roots];
    await Promise.all(this.connections.map((c) => c.rootsChanged()));
  }

  /** Each server as `miniclaw mcp` and `/mcp` show it. */
  status(): McpServerStatus[] {
    return this.connections.map((c) => {
      const offered = this.offered(c);
      const transport = "url" in c.config ? c.config.type : "command" in c.config ? "stdio" : "sdk";
      return {
        name: c.name,
        transport,
        state: c.state,
        ...(c.error !== undefined && { error: c.error }),
        tools: offered.map((t) => t.name),
        readOnly: offered.filter((t) => t.access === "read").map((t) => t.name),
        resources: c.catalog.resources.length + c.catalog.templates.length,
        prompts: c.catalog.prompts.length,
      };
    });
  }

  /** Stops every server (stdio servers' process groups are killed); never throws. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.close()));
  }

  /** Each warning once; a throwing sink must not stop the servers. */
  warn(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    try {
      this.options.onWarning?.(message);
    } catch {}
  }

  private build(): AnyTool[] {
    const live = this.connections.filter((c) => c.state === "connected" || c.state === "stopped");
    const plain = live.flatMap((c) => this.offered(c, false));
    const size = plain.reduce((sum, t) => sum + t.name.length + t.description.length + JSON.stringify(t.inputSchema).length, 0);
    const mode = this.host.toolSearch;
    const defer = mode === "always" || (mode === "auto" && (plain.length > TOOL_SEARCH_MIN_TOOLS || size > TOOL_SEARCH_MIN_CHARS));
    return defer ? live.flatMap((c) => this.offered(c, true)) : plain;
  }

  /** One server's tools after include and exclude, its reading tool with them; tools whose names clash are left out, with a warning naming both. */
  private offered(c: McpConnection, deferLoading = false): AnyTool[] {
    const { include, exclude } = c.config.tools ?? {};
    const own = c.catalog.tools.map((t) => t.name);
    const reads = (c.catalog.resources.length > 0 || c.catalog.templates.length > 0) && !own.includes(READ_RESOURCE_TOOL);
    const { names, clashes } = mcpToolNames(c.name, reads ? [...own, READ_RESOURCE_TOOL] : own);
    for (const [a, b, name] of clashes) this.warn(`MCP server "${c.name}": tools "${a}" and "${b}" both become ${name}; neither is offered`);
    const wanted = (tool: string): boolean => {
      const name = names.get(tool);
      return name !== undefined && (include === undefined || matchesToolGlob(tool, name, include)) && !matchesToolGlob(tool, name, exclude);
    };
    const readTool = reads && wanted(READ_RESOURCE_TOOL) ? names.get(READ_RESOURCE_TOOL) : undefined;
    const parts: ServerToolParts = { connection: c, deferLoading, systemNote: instructionsNote(c.name, c.catalog.instructions), readTool };
    const tools: AnyTool[] = c.catalog.tools.filter((t) => wanted(t.name)).map((t) => mcpTool(parts, t, names.get(t.name)!));
    if (readTool !== undefined) tools.push(readResourceTool(parts, readTool));
    return tools.sort((a, b) => (a.name < b.name ? -1 : 1));
  }
}
