// miniclaw/mcp: MCP servers as a tool source, from mcp.json or the library's own list, checked and connected.
import type { Env } from "../model/client.js";
import { readMcpConfig, type McpServersConfig } from "./config.js";
import { hubFor, type McpHub } from "./hub.js";

export { McpHub, connectMcpServers, hubFor, type ConnectMcpOptions, type McpHubOptions, type McpServerStatus } from "./hub.js";
export { parseMcpConfig, readMcpConfig, MCP_CONFIG_FILE } from "./config.js";
export type { McpServersConfig, McpServerConfig, McpStdioConfig, McpHttpConfig, McpSdkConfig, McpServerCommon } from "./config.js";

/**
 * The MCP servers of `<workspace>/mcp.json` as a hub for one process, undefined when the file does not
 * exist or lists no server. Nothing starts until the first turn lists its tools (or `connect()`); stdio
 * servers get the environment without its secrets (an entry's own `env` adds to it), and `${VAR}` is read
 * from `env`. Throws a one-line ConfigError naming the file, the server and the field when the file is bad.
 */
export async function openMcpHub(workspace: string, env: Env, onWarning: (message: string) => void): Promise<McpHub | undefined> {
  const config: McpServersConfig | undefined = await readMcpConfig(workspace, env);
  if (config === undefined || Object.keys(config).length === 0) return undefined;
  return hubFor(config, env, onWarning);
}
