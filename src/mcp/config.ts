// MCP server settings: workspace/mcp.json and the library's mcpServers option, checked field by field, ${VAR} expanded.
import { join, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import { isPlainObject, readEntryFields } from "./config-fields.js";
import { parseJsonConfig, readConfigText } from "../fs/config-file.js";

/** The settings every kind of server takes. */
export interface McpServerCommon {
  /** Default true; false leaves the server out without removing its entry. */
  enabled?: boolean;
  /** Globs (`*`, `?`) on the server's own tool names: only included tools are offered, excluded ones never. */
  tools?: { include?: string[]; exclude?: string[] };
  /** Globs on the server's own tool names: the tools the user declares read-only (the server's own hints never count). */
  readOnly?: string[];
  /** Per call; default `DEFAULT_MCP_TIMEOUT_MS`. */
  timeoutMs?: number;
  /** Starting and initializing the server; default `DEFAULT_MCP_CONNECT_TIMEOUT_MS`. */
  connectTimeoutMs?: number;
  /** Set when reading the entry, never written: why it cannot start (a variable it names is unset); it is then left out with this line. */
  disabledReason?: string;
}

/** A child process speaking MCP on its stdio. Parsed entries always carry `type` and an absolute `cwd`. */
export type McpStdioConfig = McpServerCommon & { type?: "stdio"; command: string; args?: string[]; env?: Record<string, string>; cwd?: string };

/**
 * OAuth for an http server; without it, a 401 server is signed in to with `miniclaw mcp login` (dynamic registration).
 * `"grant": "client_credentials"` is for a machine, with `clientSecret` or a PEM `privateKey` (private_key_jwt).
 */
export interface McpOAuthConfig {
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  callbackPort?: number;
  clientMetadataUrl?: string;
  grant?: "authorization_code" | "client_credentials";
  privateKey?: string;
  /** The JWS algorithm of `privateKey` (default ES256). */
  algorithm?: string;
}

/** A server reached over Streamable HTTP (`"streamable-http"` in a file is read as this), or the older HTTP+SSE transport (`"sse"`). */
export type McpHttpConfig = McpServerCommon & { type: "http" | "sse"; url: string; headers?: Record<string, string>; oauth?: McpOAuthConfig };

/** An in-process server: any object with connect(transport), such as an McpServer (the transport type is the SDK's, not imported here). */
export type McpSdkConfig = McpServerCommon & { type: "sdk"; server: { connect(transport: any): Promise<void> } };

/** One server's entry. */
export type McpServerConfig = McpStdioConfig | McpHttpConfig | McpSdkConfig;

/** Server entries by name; a name matches `^[a-zA-Z0-9_-]+$` and becomes part of its tools' names. */
export type McpServersConfig = Record<string, McpServerConfig>;

/** The servers file, inside the workspace. */
export const MCP_CONFIG_FILE = "mcp.json";
/** How long one tool call, and starting a server up to its answer to `initialize`, may take unless the entry says otherwise. */
export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 10_000;

const SERVER_NAME = /^[a-zA-Z0-9_-]+$/;
/** Long enough for any real name, short enough that `mcp__<server>__` survives the 64-character cut of tool names. */
const MAX_SERVER_NAME_CHARS = 40;
const SERVERS_SHAPE = '{"NAME": {"command": "..."} or {"type": "http", "url": "..."}}';
const FILE_SHAPE = `{"mcpServers": ${SERVERS_SHAPE}}`;

type Env = Record<string, string | undefined>;

/**
 * Parses `{"mcpServers": {...}}` or, from the library, the servers object itself. With `workspace` (its mcp.json) the
 * wrapper is required, `cwd` is relative to it and `"type": "sdk"` is refused; else `cwd` is relative to the process's.
 * `${VAR}` and `${VAR:-default}` in string values are read from `env` (`:-` also replaces an empty value). The result has
 * only the fields given, `type` always set and `cwd` absolute. Throws a one-line ConfigError naming `source`, server and field.
 */
export function parseMcpConfig(value: unknown, source: string, env: Env, workspace?: string, notes?: string[]): McpServersConfig {
  const servers = unwrapServers(value, source, workspace !== undefined);
  return Object.fromEntries(
    Object.entries(servers).map(([name, entry]) => {
      checkServerName(name, source);
      const config = readEntryFields(entry, { source, server: name, env, fromFile: workspace !== undefined, ...(notes && { notes }) });
      if ("command" in config && config.cwd !== undefined) config.cwd = resolve(workspace ?? process.cwd(), config.cwd);
      return [name, config];
    }),
  );
}

/** Reads `<workspace>/mcp.json`; undefined when there is none. A one-line ConfigError naming the file when it cannot be read, is not JSON, or is bad. */
export async function readMcpConfig(workspace: string, env: Env, notes?: string[]): Promise<McpServersConfig | undefined> {
  const file = join(workspace, MCP_CONFIG_FILE);
  const raw = await readConfigText(file, { optional: true });
  return raw === undefined ? undefined : parseMcpConfig(parseJsonConfig(raw, file), file, env, resolve(workspace), notes);
}

function unwrapServers(value: unknown, source: string, fromFile: boolean): Record<string, unknown> {
  if (!isPlainObject(value)) throw new ConfigError(`${source}: must be an object such as ${fromFile ? FILE_SHAPE : SERVERS_SHAPE}`);
  if (!fromFile && !("mcpServers" in value)) return value;
  const extra = Object.keys(value).filter((key) => key !== "mcpServers");
  if (extra.length > 0) {
    const hint = extra.includes("servers") ? ' (the "servers" of other tools is called "mcpServers" here)' : "";
    throw new ConfigError(`${source}: unknown field ${extra.map((k) => `"${k}"`).join(", ")}${hint}: expected ${FILE_SHAPE}`);
  }
  const servers = value["mcpServers"];
  if (!isPlainObject(servers)) throw new ConfigError(`${source}: field "mcpServers" must be an object of servers by name: expected ${FILE_SHAPE}`);
  return servers;
}

function checkServerName(name: string, source: string): void {
  const fail = (problem: string): never => {
    throw new ConfigError(`${source}: server "${name}": its name ${problem}`);
  };
  if (name === "") fail("is empty: give each server a name of letters, digits, \"_\" and \"-\"");
  if (!SERVER_NAME.test(name)) fail('may hold only letters, digits, "_" and "-" (it becomes part of tool names)');
  if (name.includes("__") || name.endsWith("_")) fail('must not contain "__" or end with "_": "__" separates the server from the tool in mcp__<server>__<tool>');
  if (name.length > MAX_SERVER_NAME_CHARS) fail(`is longer than ${MAX_SERVER_NAME_CHARS} characters (it becomes part of tool names, which the API caps at 64)`);
}
