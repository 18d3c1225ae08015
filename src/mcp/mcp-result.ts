// An MCP tool result as miniclaw tool output: text as text, images as image blocks, other content named; isError as an error.
import type { ToolOutput } from "../tools/define.js";

const API_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** One content item of a `tools/call` result, loosely typed: it comes from a program miniclaw does not control. */
type McpContent = { type: string; text?: unknown; data?: unknown; mimeType?: unknown; uri?: unknown; name?: unknown; resource?: unknown };

/** What `tools/call` answered, loosely typed for the same reason. */
export interface McpCallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

/**
 * The output of one call. Text stays text; an image of a type the API takes becomes an image block; audio, resources and
 * links are named in a line of text (the model cannot use their bytes here); structured content alone shows as JSON. An
 * `isError` result throws an Error with its text, which the dispatcher turns into an `is_error` result.
 */
export function toToolOutput(result: McpCallResult): ToolOutput {
  const items = Array.isArray(result.content) ? (result.content as McpContent[]) : [];
  const blocks = items.flatMap(toBlock);
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  if (result.isError === true) {
    const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
    throw new Error(text || "the tool reported an error without a message");
  }
  if (blocks.length === 0) return "(no output)";
  return blocks.every((b) => b.type === "text") ? blocks.map((b) => (b.type === "text" ? b.text : "")).join("\n") : blocks;
}

type Block = Exclude<ToolOutput, string>[number];

function toBlock(item: McpContent): Block[] {
  if (typeof item !== "object" || item === null) return [];
  if (item.type === "text" && typeof item.text === "string") return item.text === "" ? [] : [{ type: "text", text: item.text }];
  if (item.type === "image" && typeof item.data === "string" && typeof item.mimeType === "string" && API_IMAGE_TYPES.has(item.mimeType)) {
    return [{ type: "image", source: { type: "base64", media_type: item.mimeType as "image/png", data: item.data } }];
  }
  if (item.type === "resource") {
    const resource = (item.resource ?? {}) as { text?: unknown; uri?: unknown };
    if (typeof resource.text === "string") return [{ type: "text", text: resource.text }];
    return [{ type: "text", text: `[resource ${String(resource.uri ?? "")}]` }];
  }
  if (item.type === "resource_link") return [{ type: "text", text: `[link ${String(item.name ?? "")} ${String(item.uri ?? "")}]` }];
  return [{ type: "text", text: `[${item.type}${typeof item.mimeType === "string" ? ` ${item.mimeType}` : ""}]` }];
}
