// The names MCP tools go by: mcp__<server>__<tool> fitted to the API's rule, clashes found, and globs on either name.
import { createHash } from "node:crypto";
import { compileGlob } from "../gate/approval-entries.js";

/** The API's limit on a tool name's length. */
const MAX_TOOL_NAME_CHARS = 64;
const HASH_HEX_CHARS = 8;
/** Per code point (`u`), so a character outside the BMP becomes one "_", not two. */
const NOT_ALLOWED = /[^a-zA-Z0-9_-]/gu;

/**
 * `mcp__<server>__<tool>` cleaned to the API's ^[a-zA-Z0-9_-]{1,64}$: other characters become "_", and a
 * name longer than 64 is cut, ending with "_" + 8 hex chars of a sha256 of the full uncut name, so it stays
 * unique and stable. The hash is of the name before cleaning (UTF-8), so two long names that differ only in
 * characters the cleaning merges (`a.b`, `a b`) still differ. A pure function of its inputs: the prompt cache
 * depends on the same tools getting the same names in every process.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${server}__${tool}`;
  const cleaned = full.replace(NOT_ALLOWED, "_");
  if (cleaned.length <= MAX_TOOL_NAME_CHARS) return cleaned;
  const hash = createHash("sha256").update(full, "utf8").digest("hex").slice(0, HASH_HEX_CHARS);
  return `${cleaned.slice(0, MAX_TOOL_NAME_CHARS - HASH_HEX_CHARS - 1)}_${hash}`;
}

/**
 * Names for one server's tools, in the order given. Returns the clashes rather than throwing, so the caller
 * decides between refusing the configuration and leaving the server out with a warning; each clash is
 * `[firstTool, laterTool, mcpName]` with both original names (a tool listed twice clashes with itself).
 * Every tool of a clash is left out of `names`: which one would win is not the user's choice, so neither does.
 */
export function mcpToolNames(server: string, tools: readonly string[]): { names: Map<string, string>; clashes: Array<[string, string, string]> } {
  const firstByName = new Map<string, string>();
  const clashes: Array<[string, string, string]> = [];
  for (const tool of tools) {
    const name = mcpToolName(server, tool);
    const first = firstByName.get(name);
    if (first === undefined) firstByName.set(name, tool);
    else clashes.push([first, tool, name]);
  }
  const clashed = new Set(clashes.map(([, , name]) => name));
  const names = new Map<string, string>();
  for (const tool of tools) {
    const name = mcpToolName(server, tool);
    if (!clashed.has(name)) names.set(tool, name);
  }
  return { names, clashes };
}

/**
 * Whether a tool (its server's own name, or its mcp__ name) matches one of the globs: `*` stands for any
 * characters (none included), `?` for exactly one, everything else for itself, case included; a glob matches
 * the whole name. No globs (undefined or empty) match nothing: an absent `include` means "all" only to the
 * caller, who checks for it first.
 */
export function matchesToolGlob(tool: string, mcpName: string, globs: readonly string[] | undefined): boolean {
  return (globs ?? []).some((glob) => {
    const pattern = compileGlob(glob);
    return pattern.test(tool) || pattern.test(mcpName);
  });
}

