// An MCP tool result as miniclaw tool output: text as text, images and documents as blocks, other bytes saved, links readable; isError as an error.
import type { ToolOutput } from "../tools/define.js";
import type { McpCallResult } from "./call.js";
import { bytesToBlocks, contentsToBlocks, type Block, type SaveBytes } from "./resource-contents.js";

/** One content item of a `tools/call` result, loosely typed: it comes from a program miniclaw does not control. */
type McpContent = { type: string; text?: unknown; data?: unknown; mimeType?: unknown; uri?: unknown; name?: unknown; resource?: unknown };

/**
 * The output of one call: blocks as `contentsToBlocks` makes them, a resource link naming `readTool`, structured content
 * alone as JSON. An `isError` result throws its text, which the dispatcher turns into an `is_error` result.
 */
export async function toToolOutput(result: McpCallResult, save: SaveBytes, readTool?: string): Promise<ToolOutput> {
  const items = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
  const blocks = (await Promise.all(items.map((item) => toBlocks(item, save, readTool)))).flat();
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  if (result.isError === true) {
    const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    throw new Error(text || "the tool reported an error without a message");
  }
  if (blocks.length === 0) return "(no output)";
  return blocks.every((b) => b.type === "text") ? blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n") : blocks;
}

async function toBlocks(item: McpContent, save: SaveBytes, readTool: string | undefined): Promise<Block[]> {
  if (typeof item !== "object" || item === null) return [];
  if (item.type === "text" && typeof item.text === "string") return item.text === "" ? [] : [{ type: "text", text: item.text }];
  if ((item.type === "image" || item.type === "audio") && typeof item.data === "string" && typeof item.mimeType === "string") {
    return bytesToBlocks(item.data, item.mimeType, item.type, save);
  }
  if (item.type === "resource" && typeof item.resource === "object" && item.resource !== null) return contentsToBlocks(item.resource, save);
  if (item.type === "resource_link") {
    const how = readTool ? `; read it with ${readTool}` : "";
    return [{ type: "text", text: `[resource link: ${String(item.name ?? "")} ${String(item.uri ?? "")}${typeof item.mimeType === "string" ? ` (${item.mimeType})` : ""}${how}]` }];
  }
  return [{ type: "text", text: `[${item.type}${typeof item.mimeType === "string" ? ` ${item.mimeType}` : ""}]` }];
}
