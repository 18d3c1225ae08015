// miniclaw/mcp: MCP servers as a tool source, from mcp.json or the library's own list, checked and connected.
import { join } from "node:path";
import type { Env } from "../model/client.js";
import { readMcpConfig, type McpServersConfig } from "./config.js";
import { MCP_CREDENTIALS_FILE } from "./credential-store.js";
import { hubFor, type McpHub, type McpHubHost } from "./hub.js";

export { McpHub, connectMcpServers, hubFor, TOOL_SEARCH_MIN_CHARS, TOOL_SEARCH_MIN_TOOLS, type ConnectMcpOptions, type McpHubOptions, type McpHubHost, type McpServerStatus } from "./hub.js";
export { parseMcpConfig, readMcpConfig, MCP_CONFIG_FILE } from "./config.js";
export type { McpServersConfig, McpServerConfig, McpStdioConfig, McpHttpConfig, McpSdkConfig, McpServerCommon, McpOAuthConfig } from "./config.js";
export type { Elicit, ElicitationAnswer, ElicitationRequest, SignIn, ToolSearchMode } from "./host.js";
export type { McpPromptCommand } from "./prompts.js";
export { MCP_CREDENTIALS_FILE } from "./credential-store.js";
export { signInToServer } from "./login.js";

/**
 * The MCP servers of `<workspace>/mcp.json` as a hub for one process, undefined when the file does not exist or lists no
 * server. Nothing starts until the first turn lists its tools (or `connect()`); stdio servers get the environment without
 * its secrets (an entry's own `env` adds to it), and `${VAR}` is read from `env`. Signed-in servers' tokens are read from
 * `<workspace>/mcp-credentials.json`. Throws a one-line ConfigError naming the file, the server and the field when the
 * file is bad; fields of other clients are ignored with one warning each, and a server naming an unset variable is left
 * out with one.
 */
export async function openMcpHub(workspace: string, env: Env, onWarning: (message: string) => void, host: McpHubHost = {}): Promise<McpHub | undefined> {
  const notes: string[] = [];
  const config: McpServersConfig | undefined = await readMcpConfig(workspace, env, notes);
  if (config === undefined || Object.keys(config).length === 0) return undefined;
  const hub = hubFor(config, env, onWarning, { credentialsFile: join(workspace, MCP_CREDENTIALS_FILE), ...host });
  notes.forEach((note) => hub.warn(note));
  return hub;
}
