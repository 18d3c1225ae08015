// The names MCP tools go by: mcp__<server>__<tool> fitted to the API's rule, clashes found, and globs on either name.
import { createHash } from "node:crypto";
import { compileGlob } from "../gate/approval-entries.js";

const MAX_TOOL_NAME_CHARS = 64;
const HASH_HEX_CHARS = 8;
/** Per code point (`u`), so a character outside the BMP becomes one "_", not two. */
const NOT_ALLOWED = /[^a-zA-Z0-9_-]/gu;

/**
 * `mcp__<server>__<tool>` fitted to ^[a-zA-Z0-9_-]{1,64}$; a cut name ends with a hash of the uncleaned one, so names the
 * cleaning merges still differ. Pure: the prompt cache needs the same names in every process.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${server}__${tool}`;
  const cleaned = full.replace(NOT_ALLOWED, "_");
  if (cleaned.length <= MAX_TOOL_NAME_CHARS) return cleaned;
  const hash = createHash("sha256").update(full, "utf8").digest("hex").slice(0, HASH_HEX_CHARS);
  return `${cleaned.slice(0, MAX_TOOL_NAME_CHARS - HASH_HEX_CHARS - 1)}_${hash}`;
}

/** Names for one server's tools and the clashes (`[first, later, mcpName]`), none of which is named: which would win is not the user's choice. */
export function mcpToolNames(server: string, tools: readonly string[]): { names: Map<string, string>; clashes: Array<[string, string, string]> } {
  const named = tools.map((tool) => [tool, mcpToolName(server, tool)] as const);
  const first = new Map<string, string>();
  const clashes: Array<[string, string, string]> = [];
  for (const [tool, name] of named) {
    const earlier = first.get(name);
    if (earlier === undefined) first.set(name, tool);
    else clashes.push([earlier, tool, name]);
  }
  const clashed = new Set(clashes.map(([, , name]) => name));
  return { names: new Map(named.filter(([, name]) => !clashed.has(name))), clashes };
}

/** Whether either name of a tool matches a glob (`*`, `?`, whole name, case-sensitive). No globs match nothing: an absent `include` means "all" only to the caller. */
export function matchesToolGlob(tool: string, mcpName: string, globs: readonly string[] | undefined): boolean {
  return (globs ?? []).some((glob) => {
    const pattern = compileGlob(glob);
    return pattern.test(tool) || pattern.test(mcpName);
  });
}
