// Validation of the model's own blocks sent back in messages: signed thinking, and server tool calls with their results.
import { verifyRedactedThinking, verifyThinking } from "./signature.js";

type Block = Record<string, unknown>;

/** Result blocks of server tools, each answering a `server_tool_use` earlier in the same message. */
const SERVER_RESULT_TYPES = ["web_search_tool_result", "web_fetch_tool_result"];

/** True for the block types this module checks. */
export function isModelBlock(type: unknown): boolean {
  return type === "thinking" || type === "redacted_thinking" || type === "server_tool_use" || SERVER_RESULT_TYPES.includes(String(type));
}

function checkThinking(block: Block, path: string): string | null {
  if (block.cache_control != null) return `${path}.${String(block.type)}.cache_control: Cache control cannot be set on thinking blocks`;
  if (block.type === "redacted_thinking") {
    return verifyRedactedThinking(block.data) ? null : `${path}: Invalid \`data\` in \`redacted_thinking\` block`;
  }
  if (typeof block.thinking !== "string") return `${path}.thinking.thinking: Field required`;
  if (typeof block.signature !== "string") return `${path}.thinking.signature: Field required`;
  return verifyThinking(block.thinking, block.signature) ? null : `${path}: Invalid \`signature\` in \`thinking\` block`;
}

/**
 * The problem of one thinking, redacted_thinking, server_tool_use or server tool
 * result block at `path` of a message with `role`, or null. These are the model's
 * blocks, so only assistant messages hold them; thinking must verify against the
 * server's signature and carry no cache_control; a result needs a string `tool_use_id`.
 */
export function checkModelBlock(block: Block, role: string, path: string): string | null {
  const type = String(block.type);
  if (role !== "assistant") return `${path}: ${type} blocks may only appear in assistant messages`;
  if (type === "thinking" || type === "redacted_thinking") return checkThinking(block, path);
  if (type === "server_tool_use") {
    if (typeof block.id !== "string" || typeof block.name !== "string") return `${path}: server_tool_use needs a string id and name`;
    return null;
  }
  return typeof block.tool_use_id === "string" ? null : `${path}.${type}.tool_use_id: Field required`;
}

/** Each server tool result of an assistant message must follow the `server_tool_use` with its id in that message. */
export function checkServerResults(blocks: readonly Block[], i: number): string | null {
  const called = new Set<unknown>();
  for (const [j, block] of blocks.entries()) {
    if (block.type === "server_tool_use") called.add(block.id);
    if (!SERVER_RESULT_TYPES.includes(String(block.type)) || called.has(block.tool_use_id)) continue;
    return `messages.${i}.content.${j}: ${String(block.type)} block(s) provided when no corresponding server_tool_use block with id ${String(block.tool_use_id)} precedes it in the same message`;
  }
  return null;
}
