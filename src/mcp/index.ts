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
 * The servers of `<workspace>/mcp.json` as a hub, undefined when there is none. Nothing starts before the first turn lists
 * tools; stdio servers get `env` without its secrets. Throws a one-line ConfigError for a bad file; other clients' fields
 * and servers naming an unset variable are left out with one warning each.
 */
export async function openMcpHub(workspace: string, env: Env, onWarning: (message: string) => void, host: McpHubHost = {}): Promise<McpHub | undefined> {
  const notes: string[] = [];
  const config: McpServersConfig | undefined = await readMcpConfig(workspace, env, notes);
  if (config === undefined || Object.keys(config).length === 0) return undefined;
  const hub = hubFor(config, env, onWarning, { credentialsFile: join(workspace, MCP_CREDENTIALS_FILE), ...host });
  notes.forEach((note) => hub.warn(note));
  return hub;
}
