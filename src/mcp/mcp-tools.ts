// A server's offer as miniclaw tools: its own tools, and a read_resource tool when it has resources; each gated like any tool.
import type Anthropic from "@anthropic-ai/sdk";
import * as z from "zod";
import type { Tool } from "../tools/define.js";
import type { McpToolInfo } from "./catalog.js";
import type { McpConnection } from "./connection.js";
import { matchesToolGlob } from "./names.js";
import { contentsToBlocks, saveInto, toToolOutput, type LooseContents } from "./resource-contents.js";

/** The server-side name of the reading tool: include, exclude and readOnly globs name it so (a server tool of that name wins). */
export const READ_RESOURCE_TOOL = "read_resource";
/** Resources and templates listed in the reading tool's description; past these, the model asks by URI. */
const LISTED_RESOURCES = 40;
/** The most of a server's instructions the system prompt takes. */
const MAX_INSTRUCTIONS_CHARS = 8_000;

/** Any JSON object: MCP servers check their own input, so the dispatcher only insists on an object. */
const ANY_OBJECT = z.record(z.string(), z.unknown());
const READ_INPUT = z.object({ uri: z.string().min(1) });

/** What the approval question says of an MCP tool the user did not list in `readOnly`. */
const ASKS_BECAUSE = "mcp.json does not list it in the server's readOnly";

/** What every tool of a server shares. */
export interface ServerToolParts {
  connection: McpConnection;
  deferLoading: boolean;
  /** The server's instructions for the system prompt (the same text on each of its tools, written once). */
  systemNote: string | undefined;
  /** The miniclaw name of the server's reading tool, when it has one, for resource links to point at. */
  readTool: string | undefined;
}

/** The section of the system prompt for a server's instructions, cut to a fixed size; undefined when it gave none. */
export function instructionsNote(server: string, instructions: string | undefined): string | undefined {
  if (!instructions) return undefined;
  const text = instructions.length > MAX_INSTRUCTIONS_CHARS ? `${instructions.slice(0, MAX_INSTRUCTIONS_CHARS)}\n[… cut]` : instructions;
  return `# Instructions of the MCP server "${server}" (its tools are mcp__${server}__*)\n\n${text}`;
}

/** One MCP tool as a miniclaw tool, read-only only when `readOnly` says so: a server's own annotations come from a program the user may not control. */
export function mcpTool(parts: ServerToolParts, info: McpToolInfo, name: string): Tool<Record<string, unknown>> {
  const c = parts.connection;
  const { $schema: _dialect, ...schema } = info.inputSchema;
  return {
    name,
    description: info.description ?? info.title ?? `${info.name}, a tool of the MCP server ${c.name}`,
    input: ANY_OBJECT,
    inputSchema: { ...schema, type: "object" } as Anthropic.Tool.InputSchema,
    ...common(parts, info.name, name),
    run: async (input, context) => toToolOutput(await c.call(info.name, input, context, name), saveInto(context.workspace, c.name), parts.readTool),
  };
}

/** The server's resources as one tool: the URI of a listed resource (or one a template, a link or a result named) in, its contents out. */
export function readResourceTool(parts: ServerToolParts, name: string): Tool<{ uri: string }> {
  const c = parts.connection;
  const { resources, templates } = c.catalog;
  const listed = [
    ...resources.slice(0, LISTED_RESOURCES).map((r) => `- ${r.uri} (${r.title ?? r.name}${r.mimeType ? `, ${r.mimeType}` : ""})`),
    ...templates.slice(0, Math.max(0, LISTED_RESOURCES - resources.length)).map((t) => `- ${t.uriTemplate} (template: ${t.name})`),
  ];
  const more = resources.length + templates.length - listed.length;
  return {
    name,
    description: [`Reads a resource of the MCP server "${c.name}" by its URI: one listed here, or one a template, a resource link or a tool result names.`, ...listed, ...(more > 0 ? [`(${more} more)`] : [])].join("\n"),
    input: READ_INPUT,
    inputSchema: { type: "object", properties: { uri: { type: "string", description: "The resource's URI" } }, required: ["uri"], additionalProperties: false },
    ...common(parts, READ_RESOURCE_TOOL, name),
    run: async ({ uri }, context) => {
      const result = await c.calls.within(context, () => c.request((client) => client.readResource({ uri }, { signal: context.signal })));
      const save = saveInto(context.workspace, c.name);
      const blocks = (await Promise.all((result.contents as LooseContents[]).map((item) => contentsToBlocks(item, save)))).flat();
      if (blocks.length === 0) return "(the resource is empty)";
      return blocks.every((b) => b.type === "text") ? blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n") : blocks;
    },
  };
}

function common(parts: ServerToolParts, serverName: string, name: string): Pick<Tool, "access" | "approvalReason" | "deferLoading" | "systemNote"> {
  const readOnly = matchesToolGlob(serverName, name, parts.connection.config.readOnly ?? []);
  return {
    access: readOnly ? "read" : "ask",
    ...(!readOnly && { approvalReason: ASKS_BECAUSE }),
    ...(parts.deferLoading && { deferLoading: true }),
    ...(parts.systemNote !== undefined && { systemNote: parts.systemNote }),
  };
}
