// What a server sends back as miniclaw tool output: a tool result, a read resource, an embedded resource, audio. Text as text,
// images and PDFs as the API takes them, other bytes saved to a file, links readable; a result's isError as an error.
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ToolOutput } from "../tools/define.js";
import type { McpCallResult } from "./call.js";

export type Block = Exclude<ToolOutput, string>[number];

/** Where bytes the API cannot take are written, for the model to read or hand on: `<workspace>/mcp-files/<server>/`. */
export const MCP_FILES_FOLDER = "mcp-files";
export const API_IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);
const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|yaml|x-yaml|toml|csv|ld\+json)|.*\+(json|xml)$)/;
const EXTENSIONS: Readonly<Record<string, string>> = { "application/gzip": ".gz", "application/zip": ".zip", "audio/wav": ".wav", "audio/mpeg": ".mp3", "application/octet-stream": ".bin" };

/** One item of `resources/read` contents, loosely typed: it comes from a program miniclaw does not control. */
export type LooseContents = { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };

/** Saves bytes and says where: given by the tool's call (its workspace), so tests and callers choose the folder. */
export type SaveBytes = (bytes: Buffer, mimeType: string, uri: string) => Promise<string>;

/** A `SaveBytes` into `<workspace>/mcp-files/<server>/`, named by a hash of the bytes (the same bytes, the same file). */
export function saveInto(workspace: string, server: string): SaveBytes {
  return async (bytes, mimeType, uri) => {
    const folder = join(workspace, MCP_FILES_FOLDER, server);
    await mkdir(folder, { recursive: true });
    const base = (uri.split(/[/?#]/).filter(Boolean).at(-1) ?? "resource").replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 60);
    const extension = /\.[A-Za-z0-9]{1,5}$/.test(base) ? "" : (EXTENSIONS[mimeType] ?? "");
    const path = join(folder, `${createHash("sha256").update(bytes).digest("hex").slice(0, 12)}-${base}${extension}`);
    await writeFile(path, bytes);
    return path;
  };
}

/** Blocks for one contents item: text, an image, a PDF document, text decoded from a text type, or a line naming the saved file. */
export async function contentsToBlocks(item: LooseContents, save: SaveBytes): Promise<Block[]> {
  const uri = typeof item.uri === "string" ? item.uri : "";
  const mimeType = typeof item.mimeType === "string" ? item.mimeType : "application/octet-stream";
  if (typeof item.text === "string") return item.text === "" ? [] : [{ type: "text", text: item.text }];
  if (typeof item.blob !== "string") return [{ type: "text", text: `[resource ${uri}: no contents]` }];
  return bytesToBlocks(item.blob, mimeType, uri, save);
}

/** Base64 bytes as a block the API takes, or saved to a file named in a line of text. */
export async function bytesToBlocks(base64: string, mimeType: string, uri: string, save: SaveBytes): Promise<Block[]> {
  if (API_IMAGE_TYPES.has(mimeType)) return [{ type: "image", source: { type: "base64", media_type: mimeType as "image/png", data: base64 } }];
  if (mimeType === "application/pdf") return [{ type: "document", source: { type: "base64", media_type: "application/pdf", data: base64 } }];
  const bytes = Buffer.from(base64, "base64");
  if (TEXT_TYPES.test(mimeType)) return [{ type: "text", text: bytes.toString("utf8") }];
  const path = await save(bytes, mimeType, uri);
  return [{ type: "text", text: `[${uri || "contents"} (${mimeType}, ${bytes.length} bytes) saved to ${path}]` }];
}

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
