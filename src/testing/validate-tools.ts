// Validation of `tools`: unique names, custom tool schemas, and the server tools web_search and web_fetch.
import { isRecord } from "./conversation.js";

/** The web_search tool versions the API knows. */
export const WEB_SEARCH_TYPES = ["web_search_20250305", "web_search_20260209", "web_search_20260318"] as const;

/** The web_fetch tool versions the API knows. */
export const WEB_FETCH_TYPES = ["web_fetch_20250910", "web_fetch_20260209", "web_fetch_20260309", "web_fetch_20260318"] as const;


function unknownTag(path: string, type: string, tags: readonly string[]): string {
  return `${path}: Input tag '${type}' found using 'type' does not match any of the expected tags: ${tags.map((t) => `'${t}'`).join(", ")}`;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function checkWebTool(tool: Record<string, unknown>, i: number, family: "web_search" | "web_fetch"): string | null {
  const type = String(tool.type);
  const known: readonly string[] = family === "web_search" ? WEB_SEARCH_TYPES : WEB_FETCH_TYPES;
  if (!known.includes(type)) return unknownTag(`tools.${i}`, type, ["custom", ...WEB_SEARCH_TYPES, ...WEB_FETCH_TYPES]);
  const path = `tools.${i}.${type}`;
  if (tool.name !== family) return `${path}.name: Input should be '${family}'`;
  const maxUses = tool.max_uses;
  if (present(maxUses)) {
    if (typeof maxUses !== "number" || !Number.isInteger(maxUses)) return `${path}.max_uses: Input should be a valid integer`;
    if (maxUses < 1) return `${path}.max_uses: Input should be greater than or equal to 1`;
  }
  if (present(tool.allowed_domains) && present(tool.blocked_domains)) {
    return `${path}: Only one of allowed_domains or blocked_domains may be provided, not both`;
  }
  return null;
}

function checkTypedTool(tool: Record<string, unknown>, i: number, serverTools: boolean): string | null {
  const type = String(tool.type);
  if (!serverTools) return unknownTag(`tools.${i}`, type, ["custom"]);
  if (type.startsWith("web_search_")) return checkWebTool(tool, i, "web_search");
  if (type.startsWith("web_fetch_")) return checkWebTool(tool, i, "web_fetch");
  return null;
}

/**
 * The first problem of a `tools` value, or null. Custom tools need an object
 * `input_schema`; web_search and web_fetch need a known version, their own name, a
 * positive `max_uses` and not both domain lists. Other typed tools pass, unless
 * `serverTools` is false: then every typed tool is refused, as a provider without
 * server tools does.
 */
export function checkTools(tools: unknown, serverTools = true): string | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return "tools: Input should be a valid list";
  const names = new Set<unknown>();
  for (const [i, tool] of tools.entries()) {
    if (!isRecord(tool)) return `tools.${i}: Input should be a valid dictionary`;
    if (typeof tool.name !== "string" || tool.name === "") return `tools.${i}.name: Field required`;
    if (names.has(tool.name)) return `tools: Tool names must be unique. "${tool.name}" appears more than once`;
    names.add(tool.name);
    if (typeof tool.type === "string" && tool.type !== "custom") {
      const error = checkTypedTool(tool, i, serverTools);
      if (error) return error;
      continue;
    }
    if (!isRecord(tool.input_schema)) return `tools.${i}.custom.input_schema: Field required`;
    if (tool.input_schema.type !== "object") return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  return null;
}
