// validateRequest: the checks the real Messages API makes before answering, as one pure function; here the top level, the tools and output_config.
import { isRecord } from "./conversation.js";
import { checkThinkingConfig, checkThinkingPlacement, type IssuedThinking } from "./thinking.js";
import { checkText, validateMessages } from "./validate-messages.js";

/** The most `cache_control` breakpoints one request may carry. */
export const MAX_CACHE_BREAKPOINTS = 4;
/** The effort levels the API accepts. */
export const EFFORTS = ["low", "medium", "high", "xhigh", "max"] as const;
/** The web_search tool versions the API knows. */
export const WEB_SEARCH_TYPES = ["web_search_20250305", "web_search_20260209", "web_search_20260318"] as const;
/** The web_fetch tool versions the API knows. */
export const WEB_FETCH_TYPES = ["web_fetch_20250910", "web_fetch_20260209", "web_fetch_20260309", "web_fetch_20260318"] as const;

const REMOVED_PARAMS = ["temperature", "top_p", "top_k"] as const;
/** JSON Schema keywords whose value is one subschema, a list of them, or a map of them. */
const SINGLE = ["items", "not", "contains", "additionalItems", "if", "then", "else"] as const;
const LISTS = ["anyOf", "allOf", "oneOf", "prefixItems", "items"] as const;
const MAPS = ["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"] as const;

/** How `validateRequest` reads a request. */
export interface ValidateOptions {
  /** A `count_tokens` body: no `max_tokens` needed. */
  countTokens?: boolean;
  /** The thinking sent with each call issued; without it only manual thinking's "starts with thinking" rule applies. */
  issuedThinking?: IssuedThinking;
  /** False: every typed (server) tool is refused, as by a provider without them. Default true. */
  serverTools?: boolean;
}

/**
 * The 400 message the real API would answer for `body`, or null when it is valid. Pure. Checks the top level, `thinking`,
 * `output_config`, system, tools, cache breakpoints and messages (pairing, the model's blocks sent back unchanged).
 * Stricter than the API on one point: a blank tool_result string is refused.
 */
export function validateRequest(body: unknown, options: ValidateOptions = {}): string | null {
  if (!isRecord(body)) return "request body must be a JSON object";
  const countTokens = options.countTokens === true;
  const breakpoints = cacheBreakpoints(body);
  return (
    checkTopLevel(body, countTokens) ??
    checkThinkingConfig(body, countTokens) ??
    checkOutputConfig(body.output_config) ??
    checkSystem(body.system) ??
    checkTools(body.tools, options.serverTools ?? true) ??
    validateMessages(body.messages) ??
    checkThinkingPlacement(body, options.issuedThinking) ??
    (breakpoints.length > MAX_CACHE_BREAKPOINTS ? `A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.` : null) ??
    checkCacheTtls(breakpoints)
  );
}

/** The `cache_control` of each breakpoint of a request in prompt order: tools, system blocks, message blocks (inside tool_result content too), and the top-level automatic one last. */
function cacheBreakpoints(body: Record<string, unknown>): unknown[] {
  const inList = (list: unknown): unknown[] =>
    Array.isArray(list) ? list.flatMap((b) => (isRecord(b) ? [...(b.cache_control != null ? [b.cache_control] : []), ...(b.type === "tool_result" ? inList(b.content) : [])] : [])) : [];
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const inMessages = messages.flatMap((m) => (isRecord(m) ? inList(m.content) : []));
  return [...inList(body.tools), ...inList(body.system), ...inMessages, ...(body.cache_control != null ? [body.cache_control] : [])];
}

/** How many `cache_control` breakpoints a request carries. */
export function countCacheBreakpoints(body: Record<string, unknown>): number {
  return cacheBreakpoints(body).length;
}

/** Each breakpoint's `ttl` is "5m" or "1h", and a 1-hour one never follows a 5-minute one (the API refuses a longer lifetime after a shorter). */
function checkCacheTtls(breakpoints: unknown[]): string | null {
  let short = false;
  for (const control of breakpoints) {
    const ttl = isRecord(control) ? (control.ttl ?? "5m") : "5m";
    if (ttl !== "5m" && ttl !== "1h") return `cache_control.ttl: Input should be '5m' or '1h', got ${JSON.stringify(ttl)}`;
    if (ttl === "1h" && short) return "cache_control: a breakpoint with ttl '1h' must not come after one with ttl '5m' (longer lifetimes come first, in the order tools, system, messages)";
    short ||= ttl === "5m";
  }
  return null;
}

function checkTopLevel(body: Record<string, unknown>, countTokens: boolean): string | null {
  if (body.model === undefined) return "model: Field required";
  if (typeof body.model !== "string" || body.model === "") return "model: Input should be a valid string";
  if (!countTokens) {
    const max = body.max_tokens;
    if (max === undefined) return "max_tokens: Field required";
    if (typeof max !== "number" || !Number.isInteger(max)) return "max_tokens: Input should be a valid integer";
    if (max < 0) return "max_tokens: Input should be greater than or equal to 0";
  }
  const removed = REMOVED_PARAMS.find((name) => name in body);
  return removed ? `${removed}: Extra inputs are not permitted. This API version no longer accepts sampling parameters; remove \`${removed}\`.` : null;
}

function checkSystem(system: unknown): string | null {
  if (system === undefined || typeof system === "string") return null;
  if (!Array.isArray(system)) return "system: Input should be a valid string or list of text blocks";
  for (const [j, block] of system.entries()) {
    const error = isRecord(block) && block.type === "text" ? checkText(block.text, `system.${j}.text`) : `system.${j}.type: Input should be 'text'`;
    if (error) return error;
  }
  return null;
}

function unknownTag(path: string, type: string, tags: readonly string[]): string {
  return `${path}: Input tag '${type}' found using 'type' does not match any of the expected tags: ${tags.map((t) => `'${t}'`).join(", ")}`;
}

/** web_search and web_fetch: a known version, their own name, a positive `max_uses`, not both domain lists. */
function checkWebTool(tool: Record<string, unknown>, i: number, family: "web_search" | "web_fetch"): string | null {
  const type = String(tool.type);
  const known: readonly string[] = family === "web_search" ? WEB_SEARCH_TYPES : WEB_FETCH_TYPES;
  if (!known.includes(type)) return unknownTag(`tools.${i}`, type, ["custom", ...WEB_SEARCH_TYPES, ...WEB_FETCH_TYPES]);
  const path = `tools.${i}.${type}`;
  if (tool.name !== family) return `${path}.name: Input should be '${family}'`;
  const maxUses = tool.max_uses;
  if (maxUses != null) {
    if (typeof maxUses !== "number" || !Number.isInteger(maxUses)) return `${path}.max_uses: Input should be a valid integer`;
    if (maxUses < 1) return `${path}.max_uses: Input should be greater than or equal to 1`;
  }
  if (tool.allowed_domains != null && tool.blocked_domains != null) return `${path}: Only one of allowed_domains or blocked_domains may be provided, not both`;
  return null;
}

/** Custom tools need an object `input_schema`; other typed tools pass, unless `serverTools` is false: then every one is refused. */
function checkTools(tools: unknown, serverTools: boolean): string | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return "tools: Input should be a valid list";
  const names = new Set<unknown>();
  for (const [i, tool] of tools.entries()) {
    if (!isRecord(tool)) return `tools.${i}: Input should be a valid dictionary`;
    if (typeof tool.name !== "string" || tool.name === "") return `tools.${i}.name: Field required`;
    if (names.has(tool.name)) return `tools: Tool names must be unique. "${tool.name}" appears more than once`;
    names.add(tool.name);
    const type = tool.type;
    if (typeof type === "string" && type !== "custom") {
      const error = !serverTools ? unknownTag(`tools.${i}`, type, ["custom"])
        : type.startsWith("web_search_") ? checkWebTool(tool, i, "web_search")
        : type.startsWith("web_fetch_") ? checkWebTool(tool, i, "web_fetch")
        : null;
      if (error) return error;
    } else if (!isRecord(tool.input_schema)) return `tools.${i}.custom.input_schema: Field required`;
    else if (tool.input_schema.type !== "object") return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  return null;
}

function extraKey(value: Record<string, unknown>, allowed: readonly string[], path: string): string | null {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  return extra === undefined ? null : `${path}.${extra}: Extra inputs are not permitted`;
}

/** The first object schema at or under `schema` that does not set `additionalProperties: false`. */
function checkSchema(schema: unknown, path: string): string | null {
  if (!isRecord(schema)) return null;
  const type = schema.type;
  const isObject = type === "object" || (Array.isArray(type) && type.includes("object")) || (type === undefined && isRecord(schema.properties));
  if (isObject && schema.additionalProperties !== false) return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  const children: Array<[unknown, string]> = [];
  for (const key of SINGLE) if (isRecord(schema[key])) children.push([schema[key], `${path}.${key}`]);
  for (const key of LISTS) if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach((item, k) => children.push([item, `${path}.${key}.${k}`]));
  for (const key of MAPS) if (isRecord(schema[key])) for (const [name, item] of Object.entries(schema[key])) children.push([item, `${path}.${key}.${name}`]);
  for (const [child, childPath] of children) {
    const error = checkSchema(child, childPath);
    if (error) return error;
  }
  return null;
}

/** Only `effort` (one of EFFORTS) and `format` (`{type: "json_schema", schema}`, its root an object and every object schema inside closed). */
function checkOutputConfig(config: unknown): string | null {
  if (config == null) return null;
  if (!isRecord(config)) return "output_config: Input should be a valid dictionary or object";
  const extra = extraKey(config, ["effort", "format"], "output_config");
  if (extra) return extra;
  if (config.effort != null && !(EFFORTS as readonly unknown[]).includes(config.effort)) {
    return `output_config.effort: Input should be ${EFFORTS.slice(0, -1).map((e) => `'${e}'`).join(", ")} or '${EFFORTS.at(-1)}'`;
  }
  const { format } = config;
  const path = "output_config.format";
  if (format == null) return null;
  if (!isRecord(format)) return `${path}: Input should be a valid dictionary or object`;
  if (format.type !== "json_schema") return `${path}.type: Input should be 'json_schema'`;
  const extraInFormat = extraKey(format, ["type", "schema"], path);
  if (extraInFormat) return extraInFormat;
  if (format.schema === undefined) return `${path}.schema: Field required`;
  if (!isRecord(format.schema)) return `${path}.schema: Input should be a valid dictionary`;
  if (format.schema.type !== "object") return `${path}.schema.type: The root schema must have type 'object'`;
  return checkSchema(format.schema, `${path}.schema`);
}
