// One entry of the MCP server settings: its kind, each field checked and ${VAR}-expanded, one-line errors that name the field.
import { ConfigError } from "../errors.js";
import type { McpHttpConfig, McpOAuthConfig, McpSdkConfig, McpServerCommon, McpServerConfig, McpStdioConfig } from "./config.js";

/** Where an entry comes from, for errors and expansion; `lenient` for a disabled server, which never starts, so a variable it names need not be set. */
export interface FieldScope {
  source: string;
  server: string;
  env: Record<string, string | undefined>;
  fromFile: boolean;
  lenient?: boolean;
  /** Filled while reading: unset variables the entry names (the server is then left out, not refused). */
  unset?: string[];
  /** One line per entry whose fields of other tools were ignored. */
  notes?: string[];
}

type Kind = "stdio" | "http" | "sdk";
type Entry = Record<string, unknown>;

const COMMON_FIELDS = ["enabled", "tools", "readOnly", "timeoutMs", "connectTimeoutMs"];
const KIND_FIELDS: Record<Kind, string[]> = {
  stdio: ["type", "command", "args", "env", "cwd", ...COMMON_FIELDS],
  http: ["type", "url", "headers", "oauth", ...COMMON_FIELDS],
  sdk: ["type", "server", ...COMMON_FIELDS],
};
const KIND_LABELS: Record<Kind, string> = { stdio: "a stdio server", http: "an http server", sdk: "an sdk server" };
/** Fields other tools' configurations use, and what to write here instead. */
const FIELD_HINTS = new Map([["serverUrl", 'use "url"'], ["httpUrl", 'use "type": "http" with "url"'], ["transport", 'use "type"']]);
/** Fields of other clients' configurations (Claude Code, Cline, Cursor) that mean nothing here: ignored, with one note. */
const FOREIGN_FIELDS = ["autoApprove", "alwaysAllow", "disabledTools", "description", "timeout", "networkTimeout", "trust", "includeTools", "excludeTools"];
const OAUTH_FIELDS = ["clientId", "clientSecret", "scope", "callbackPort", "clientMetadataUrl", "grant", "privateKey", "algorithm"];
/** Beyond this, Node's timers fire at once instead of late. */
const MAX_TIMEOUT_MS = 2_147_483_647;
const REFERENCE = /\$\{([^}]*)\}/g;
const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const ENV_NAME = /^[^=\0]+$/;

/** Reads one server's entry: throws a one-line ConfigError naming the source, the server and the field at fault. */
export function readEntryFields(entry: unknown, scope: FieldScope): McpServerConfig {
  if (!isPlainObject(entry)) {
    throw new ConfigError(`${scope.source}: server "${scope.server}" must be an object such as {"command": "..."} or {"type": "http", "url": "..."}`);
  }
  const kind = kindOf(entry, scope);
  const own = withoutForeignFields(entry, scope);
  checkKnownFields(own, kind, scope);
  const common = readCommon(own, scope);
  const unset: string[] = [];
  const fieldScope = { ...scope, lenient: common.enabled === false, unset };
  const config: McpServerConfig =
    kind === "stdio" ? { ...common, ...readStdio(own, fieldScope) }
    : kind === "http" ? { ...common, ...readHttp(own, fieldScope) }
    : { ...common, type: "sdk", server: readServerObject(own, scope) };
  if (unset.length === 0) return config;
  // One server whose variable is unset is left out, with one line; the others start.
  const names = [...new Set(unset)].map((name) => `\${${name}}`).join(", ");
  return { ...config, enabled: false, disabledReason: `it uses ${names}, which ${unset.length > 1 ? "are" : "is"} not set: set ${[...new Set(unset)].join(", ")} in the environment, or write \${NAME:-default}` };
}

/** The entry without the fields of other clients (noted once) and with `disabled` read as `enabled`. */
function withoutForeignFields(entry: Entry, scope: FieldScope): Entry {
  const foreign = Object.keys(entry).filter((key) => FOREIGN_FIELDS.includes(key));
  if (foreign.length > 0) scope.notes?.push(`${scope.source}: server "${scope.server}": ignored ${foreign.map((k) => `"${k}"`).join(", ")} (another client's setting${foreign.length > 1 ? "s" : ""}; miniclaw asks before each call unless "readOnly" lists the tool)`);
  const { disabled, ...rest } = Object.fromEntries(Object.entries(entry).filter(([key]) => !FOREIGN_FIELDS.includes(key)));
  if (disabled === undefined) return rest;
  if (typeof disabled !== "boolean") fail(scope, "disabled", `must be true or false (got ${kindOfValue(disabled)})`);
  if (rest["enabled"] !== undefined) fail(scope, "disabled", 'cannot go with "enabled": give one of them');
  return { ...rest, enabled: !disabled };
}

/** Not null, not a list. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(scope: FieldScope, field: string, problem: string): never {
  throw new ConfigError(`${scope.source}: server "${scope.server}": field "${field}" ${problem}`);
}

function kindOf(entry: Entry, scope: FieldScope): Kind {
  const type = entry["type"];
  if (type === undefined) {
    if ("command" in entry && "url" in entry) fail(scope, "url", 'cannot go with "command": give "command" for a stdio server, or "type": "http" with "url"');
    if ("url" in entry) return "http";
    if ("command" in entry) return "stdio";
    // A misspelt field (`comand`) is named: it is the likelier mistake than a missing one.
    checkKnownFields(entry, "stdio", scope);
    fail(scope, "command", 'is required: the program to start, or "type": "http" with "url" for a remote server');
  }
  if (type === "stdio") return "stdio";
  if (type === "http" || type === "streamable-http" || type === "sse") return "http";
  if (type === "sdk" && !scope.fromFile) return "sdk";
  if (type === "sdk") fail(scope, "type", 'is "sdk", which is for the library only (a file cannot hold a server object): use "command", or "type": "http" with "url"');
  const allowed = scope.fromFile ? '"stdio", "http" or "sse"' : '"stdio", "http", "sse" or "sdk"';
  return fail(scope, "type", `must be ${allowed} (got ${typeof type === "string" ? JSON.stringify(type) : kindOfValue(type)})`);
}

function checkKnownFields(entry: Entry, kind: Kind, scope: FieldScope): void {
  const known = KIND_FIELDS[kind];
  const unknown = Object.keys(entry).filter((key) => !known.includes(key));
  if (unknown.length === 0) return;
  const hints = unknown.flatMap((key) => FIELD_HINTS.get(key) ?? []);
  const names = `${unknown.length > 1 ? "fields" : "field"} ${unknown.map((key) => JSON.stringify(key)).join(", ")}`;
  const hint = hints.length > 0 ? ` (${hints.join("; ")})` : "";
  throw new ConfigError(`${scope.source}: server "${scope.server}": unknown ${names}${hint}; ${KIND_LABELS[kind]} takes ${known.join(", ")}`);
}

function readCommon(entry: Entry, scope: FieldScope): McpServerCommon {
  const enabled = entry["enabled"];
  if (enabled !== undefined && typeof enabled !== "boolean") fail(scope, "enabled", `must be true or false (got ${kindOfValue(enabled)})`);
  return given({
    enabled,
    tools: readToolFilter(entry["tools"], scope),
    readOnly: readGlobs(entry["readOnly"], "readOnly", scope),
    timeoutMs: readMilliseconds(entry["timeoutMs"], "timeoutMs", scope),
    connectTimeoutMs: readMilliseconds(entry["connectTimeoutMs"], "connectTimeoutMs", scope),
  });
}

function readStdio(entry: Entry, scope: FieldScope): McpStdioConfig {
  const command = readText(entry["command"], "command", scope);
  if (command === undefined) fail(scope, "command", "is required for a stdio server: the program to start");
  const fields = given({ args: readTextList(entry["args"], "args", scope), env: readTextMap(entry["env"], "env", ENV_NAME, scope), cwd: readText(entry["cwd"], "cwd", scope) });
  return { type: "stdio", command, ...fields };
}

function readHttp(entry: Entry, scope: FieldScope): McpHttpConfig {
  const url = readText(entry["url"], "url", scope);
  if (url === undefined) fail(scope, "url", 'is required for an http server: its address, such as "https://example.com/mcp"');
  const protocol = URL.canParse(url) ? new URL(url).protocol : undefined;
  const unexpanded = (scope.lenient === true || (scope.unset?.length ?? 0) > 0) && url.includes("${");
  // The address is not shown: once expanded it may carry a token.
  if (!unexpanded && protocol !== "http:" && protocol !== "https:") fail(scope, "url", 'must be an http:// or https:// address, such as "https://example.com/mcp"');
  const headers = readTextMap(entry["headers"], "headers", HEADER_NAME, scope);
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (/[\r\n\0]/.test(value)) fail(scope, `headers.${name}`, "must be one line (it holds a line break or a NUL once expanded)");
  }
  const oauth = readOAuth(entry["oauth"], scope);
  return { type: entry["type"] === "sse" ? "sse" : "http", url, ...(headers !== undefined && { headers }), ...(oauth !== undefined && { oauth }) };
}

/** `oauth`: a pre-registered client, its scope, the loopback port, or machine-to-machine credentials (`grant`). */
function readOAuth(value: unknown, scope: FieldScope): McpOAuthConfig | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) fail(scope, "oauth", `must be an object such as {"clientId": "...", "callbackPort": 8765} (got ${kindOfValue(value)})`);
  const extra = Object.keys(value).find((key) => !OAUTH_FIELDS.includes(key));
  if (extra !== undefined) fail(scope, `oauth.${extra}`, `is not a setting: "oauth" takes ${OAUTH_FIELDS.join(", ")}`);
  const grant = value["grant"];
  if (grant !== undefined && grant !== "authorization_code" && grant !== "client_credentials") fail(scope, "oauth.grant", 'must be "authorization_code" (sign in as a person, the default) or "client_credentials" (a machine)');
  const port = value["callbackPort"];
  if (port !== undefined && (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)) fail(scope, "oauth.callbackPort", "must be a port number from 1 to 65535");
  const text = (key: string): string | undefined => readText(value[key], `oauth.${key}`, scope);
  const config = given({ clientId: text("clientId"), clientSecret: text("clientSecret"), scope: text("scope"), clientMetadataUrl: text("clientMetadataUrl"), privateKey: text("privateKey"), algorithm: text("algorithm"), callbackPort: port as number | undefined, grant: grant as McpOAuthConfig["grant"] });
  if (config.grant === "client_credentials" && (config.clientId === undefined || (config.clientSecret === undefined && config.privateKey === undefined))) {
    fail(scope, "oauth", 'with "grant": "client_credentials" needs "clientId" and "clientSecret" (or "privateKey")');
  }
  return config;
}

function readServerObject(entry: Entry, scope: FieldScope): McpSdkConfig["server"] {
  const server = entry["server"];
  if (isPlainObject(server) && typeof server["connect"] === "function") return server as McpSdkConfig["server"];
  const problem = server === undefined ? "is required" : `must be an MCP server object (got ${kindOfValue(server)})`;
  return fail(scope, "server", `${problem}: an object with connect(transport), such as an McpServer of @modelcontextprotocol/server`);
}

function readToolFilter(value: unknown, scope: FieldScope): McpServerCommon["tools"] {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) fail(scope, "tools", `must be an object such as {"include": ["get_*"], "exclude": ["delete_*"]} (got ${kindOfValue(value)})`);
  const extra = Object.keys(value).find((key) => key !== "include" && key !== "exclude");
  if (extra !== undefined) fail(scope, `tools.${extra}`, 'is not a setting: "tools" takes "include" and "exclude"');
  return given({ include: readGlobs(value["include"], "tools.include", scope), exclude: readGlobs(value["exclude"], "tools.exclude", scope) });
}

function readGlobs(value: unknown, field: string, scope: FieldScope): string[] | undefined {
  if (value === undefined) return undefined;
  const ok = Array.isArray(value) && value.every((glob) => typeof glob === "string" && glob !== "");
  if (!ok) fail(scope, field, 'must be a list of tool names or globs, such as ["get_*", "list_?"]');
  return [...(value as string[])];
}

function readMilliseconds(value: unknown, field: string, scope: FieldScope): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_TIMEOUT_MS) return value;
  const got = typeof value === "number" ? String(value) : kindOfValue(value);
  return fail(scope, field, `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (got ${got})`);
}

function readText(value: unknown, field: string, scope: FieldScope): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") fail(scope, field, `must be a string (got ${kindOfValue(value)})`);
  const text = expandVariables(value, field, scope);
  if (text.trim() === "") fail(scope, field, "must not be empty");
  return text;
}

function readTextList(value: unknown, field: string, scope: FieldScope): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) fail(scope, field, `must be a list of strings (got ${kindOfValue(value)})`);
  const bad = value.findIndex((item) => typeof item !== "string");
  if (bad >= 0) fail(scope, field, `must be a list of strings (item ${bad + 1} is ${kindOfValue(value[bad])})`);
  return (value as string[]).map((item, index) => expandVariables(item, `${field}[${index}]`, scope));
}

function readTextMap(value: unknown, field: string, keyPattern: RegExp, scope: FieldScope): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) fail(scope, field, `must be an object of strings, such as {"NAME": "value"} (got ${kindOfValue(value)})`);
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (!keyPattern.test(key)) fail(scope, field, `has ${JSON.stringify(key)}, which is not a valid name`);
      if (typeof item !== "string") fail(scope, `${field}.${key}`, `must be a string (got ${kindOfValue(item)})`);
      return [key, expandVariables(item, `${field}.${key}`, scope)];
    }),
  );
}

/** `${NAME}` and `${NAME:-default}`, in one pass (`$NAME` is left alone); an unset variable is an error, except in a disabled server. */
function expandVariables(text: string, field: string, scope: FieldScope): string {
  return text.replace(REFERENCE, (whole, body: string) => {
    const match = VARIABLE.exec(body);
    if (match === null) return fail(scope, field, `holds ${whole}, which is not a variable: write \${NAME} or \${NAME:-default}`);
    const [, name = "", fallback] = match;
    const value = Object.hasOwn(scope.env, name) ? scope.env[name] : undefined;
    if (fallback !== undefined && (value === undefined || value === "")) return fallback;
    if (value === undefined && scope.lenient === true) return whole;
    if (value === undefined && scope.unset !== undefined) {
      scope.unset.push(name);
      return whole;
    }
    if (value === undefined) fail(scope, field, `uses \${${name}}, which is not set: set ${name} in the environment, or write \${${name}:-default}`);
    return value;
  });
}

/** What a JSON value is, for messages: never the value itself, which may be a secret. */
function kindOfValue(value: unknown): string {
  if (value === null || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** The fields that are set: an entry parsed holds only the fields given. */
function given<T extends object>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}
