// One entry of the MCP server settings: its kind, then its fields checked by a zod schema and ${VAR}-expanded; one-line errors that name the field.
import * as z from "zod";
import { ConfigError } from "../errors.js";
import type { McpSdkConfig, McpServerConfig } from "./config.js";

/** Where an entry comes from, for errors and expansion. */
export interface FieldScope {
  source: string;
  server: string;
  env: Record<string, string | undefined>;
  fromFile: boolean;
  /** One line per entry whose fields of other tools were ignored. */
  notes?: string[];
}

type Kind = "stdio" | "http" | "sdk";
type Entry = Record<string, unknown>;
/** How `${VAR}` is read; `lenient` for a disabled server, which never starts, so a variable it names need not be set; `unset` fills while reading. */
type Expansion = { env: FieldScope["env"]; lenient: boolean; unset: string[] };

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
const GRANTS = ["authorization_code", "client_credentials"] as const;
const OAUTH_FIELDS = ["clientId", "clientSecret", "scope", "callbackPort", "clientMetadataUrl", "grant", "privateKey", "algorithm"];
const GLOBS = 'must be a list of tool names or globs, such as ["get_*", "list_?"]';
const TOOLS_EXAMPLE = '{"include": ["get_*"], "exclude": ["delete_*"]}';
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
  const expansion: Expansion = { env: scope.env, lenient: own["enabled"] === false, unset: [] };
  const parsed = entrySchema(kind, expansion).safeParse(own);
  if (!parsed.success) {
    const { path, message } = parsed.error.issues[0]!;
    fail(scope, path.map((step, i) => (typeof step === "number" ? `[${step}]` : `${i > 0 ? "." : ""}${String(step)}`)).join(""), message);
  }
  const type = kind === "http" && own["type"] === "sse" ? "sse" : kind;
  const config = { type, ...parsed.data } as McpServerConfig;
  const { unset } = expansion;
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

/** The fields of a `kind` entry (no other is left), checked in the order a person reads them. */
function entrySchema(kind: Kind, expansion: Expansion) {
  const { text, ms, globs, strings } = fieldTypes(expansion);
  const common = {
    enabled: z.boolean({ error: (i) => `must be true or false (got ${kindOfValue(i.input)})` }).optional(),
    tools: settings({ include: globs.optional(), exclude: globs.optional() }, TOOLS_EXAMPLE, '"tools" takes "include" and "exclude"').optional(),
    readOnly: globs.optional(),
    timeoutMs: ms.optional(),
    connectTimeoutMs: ms.optional(),
  };
  if (kind === "stdio") {
    const env = textMap(ENV_NAME, expansion).optional();
    return z.object({ ...common, command: text("for a stdio server: the program to start"), args: strings.optional(), env, cwd: text().optional() });
  }
  if (kind === "sdk") return z.object({ ...common, server: SERVER_OBJECT });
  // The address is not shown: once expanded it may carry a token.
  const unexpanded = (address: string): boolean => (expansion.lenient || expansion.unset.length > 0) && address.includes("${");
  const url = text('for an http server: its address, such as "https://example.com/mcp"').refine(
    (address) => unexpanded(address) || /^https?:$/.test(URL.canParse(address) ? new URL(address).protocol : ""),
    'must be an http:// or https:// address, such as "https://example.com/mcp"',
  );
  const headers = textMap(HEADER_NAME, expansion).superRefine((map, ctx) => {
    const name = Object.keys(map).find((key) => /[\r\n\0]/.test(map[key]!));
    if (name !== undefined) ctx.addIssue({ code: "custom", message: "must be one line (it holds a line break or a NUL once expanded)", path: [name] });
  });
  return z.object({ ...common, url, headers: headers.optional(), oauth: oauthSchema(text().optional()).optional() });
}

/** The checks of single values; strings `${VAR}`-expanded through `expansion`. */
function fieldTypes(expansion: Expansion) {
  const string = (required?: string) =>
    z
      .string({ error: (i) => (i.input === undefined && required ? `is required ${required}` : `must be a string (got ${kindOfValue(i.input)})`) })
      .transform((text, ctx) => expand(text, expansion, ctx));
  return {
    text: (required?: string) => string(required).refine((value) => value.trim() !== "", "must not be empty"),
    ms: z.custom<number>((v) => typeof v === "number" && Number.isInteger(v) && v >= 1 && v <= MAX_TIMEOUT_MS, {
      error: (i) => `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (got ${typeof i.input === "number" ? i.input : kindOfValue(i.input)})`,
    }),
    globs: z.custom<string[]>((v) => Array.isArray(v) && v.every((glob) => typeof glob === "string" && glob !== ""), GLOBS).transform((list) => [...list]),
    strings: z.array(z.unknown(), { error: (i) => `must be a list of strings (got ${kindOfValue(i.input)})` }).transform((items, ctx) => {
      const bad = items.findIndex((item) => typeof item !== "string");
      if (bad < 0) return items.map((item, index) => expand(item as string, expansion, ctx, [index]));
      ctx.addIssue({ code: "custom", message: `must be a list of strings (item ${bad + 1} is ${kindOfValue(items[bad])})` });
      return z.NEVER;
    }),
  };
}

/** An in-process server: any object with connect(transport). */
const SERVER_OBJECT = z.custom<McpSdkConfig["server"]>((v) => isPlainObject(v) && typeof v["connect"] === "function", {
  error: (i) => {
    const problem = i.input === undefined ? "is required" : `must be an MCP server object (got ${kindOfValue(i.input)})`;
    return `${problem}: an object with connect(transport), such as an McpServer of @modelcontextprotocol/server`;
  },
});

/** `oauth`: a pre-registered client, its scope, the loopback port, or machine-to-machine credentials (`grant`). */
function oauthSchema(text: z.ZodType<string | undefined>) {
  const shape = {
    grant: z.enum(GRANTS, 'must be "authorization_code" (sign in as a person, the default) or "client_credentials" (a machine)').optional(),
    callbackPort: z.custom<number>((v) => Number.isInteger(v) && Number(v) >= 1 && Number(v) <= 65535, "must be a port number from 1 to 65535").optional(),
    clientId: text,
    clientSecret: text,
    scope: text,
    clientMetadataUrl: text,
    privateKey: text,
    algorithm: text,
  };
  return settings(shape, '{"clientId": "...", "callbackPort": 8765}', `"oauth" takes ${OAUTH_FIELDS.join(", ")}`).refine(
    (o) => o.grant !== "client_credentials" || (o.clientId !== undefined && (o.clientSecret !== undefined || o.privateKey !== undefined)),
    'with "grant": "client_credentials" needs "clientId" and "clientSecret" (or "privateKey")',
  );
}

/** An object of `shape`'s fields alone: a field it does not take is named (`field.key`) before any of its own is read. */
function settings<S extends z.ZodRawShape>(shape: S, example: string, takes: string) {
  const extraIn = (value: unknown): string | undefined => (isPlainObject(value) ? Object.keys(value).find((key) => !Object.hasOwn(shape, key)) : undefined);
  return z.preprocess(
    (value, ctx) => {
      const extra = extraIn(value);
      if (extra !== undefined) ctx.addIssue({ code: "custom", message: `is not a setting: ${takes}`, path: [extra] });
      return value;
    },
    z.object(shape, { error: (i) => `must be an object such as ${example} (got ${kindOfValue(i.input)})` }),
  );
}

/** An object of strings whose keys match `keyPattern`, each checked and expanded in turn. */
function textMap(keyPattern: RegExp, expansion: Expansion) {
  const shape = (i: { input?: unknown }): string => `must be an object of strings, such as {"NAME": "value"} (got ${kindOfValue(i.input)})`;
  return z.custom<Entry>(isPlainObject, { error: shape }).transform((value, ctx) => {
    const entries: Array<[string, string]> = [];
    for (const [key, item] of Object.entries(value)) {
      const named = keyPattern.test(key);
      if (!named || typeof item !== "string") {
        const message = named ? `must be a string (got ${kindOfValue(item)})` : `has ${JSON.stringify(key)}, which is not a valid name`;
        ctx.addIssue({ code: "custom", message, path: named ? [key] : [] });
        return z.NEVER;
      }
      entries.push([key, expand(item, expansion, ctx, [key])]);
    }
    return Object.fromEntries(entries);
  });
}

/**
 * `${NAME}` and `${NAME:-default}`, in one pass (`$NAME` is left alone). An unset variable is kept as written: noted in
 * `unset` (the server is then left out, not refused), except in a disabled server, which needs none.
 */
function expand(text: string, expansion: Expansion, ctx: z.RefinementCtx, path: PropertyKey[] = []): string {
  return text.replace(REFERENCE, (whole, body: string) => {
    const match = VARIABLE.exec(body);
    if (match === null) {
      ctx.addIssue({ code: "custom", message: `holds ${whole}, which is not a variable: write \${NAME} or \${NAME:-default}`, path });
      return whole;
    }
    const [, name = "", fallback] = match;
    const value = Object.hasOwn(expansion.env, name) ? expansion.env[name] : undefined;
    if (fallback !== undefined && (value === undefined || value === "")) return fallback;
    if (value === undefined && !expansion.lenient) expansion.unset.push(name);
    return value ?? whole;
  });
}

/** What a JSON value is, for messages: never the value itself, which may be a secret. */
function kindOfValue(value: unknown): string {
  if (value === null || typeof value === "boolean") return String(value);
  return Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : `a ${typeof value}`;
}
