// Validation of the `messages` array: roles, empty content, text blocks, tool_use / tool_result pairing, and the model's own blocks sent back.
import { isRecord, type LooseBlock } from "./conversation.js";
import { verifyRedactedThinking, verifyThinking } from "./signature.js";

/** Result blocks of server tools, each answering a `server_tool_use` earlier in the same message. */
const SERVER_RESULT_TYPES = ["web_search_tool_result", "web_fetch_tool_result"];
/** The blocks only the model writes, so only assistant messages hold them. */
const MODEL_TYPES = ["tool_use", "server_tool_use", "thinking", "redacted_thinking", ...SERVER_RESULT_TYPES];

/** The error for a text value that is not a string, empty or only whitespace, else null. */
export function checkText(text: unknown, path: string): string | null {
  if (typeof text !== "string") return `${path}: Input should be a valid string`;
  if (text === "") return `${path}: text content blocks must be non-empty`;
  return text.trim() === "" ? `${path}: text content blocks must contain non-whitespace text` : null;
}

/** The first problem of a `messages` value, in the API's wording where known, or null. */
export function validateMessages(messages: unknown): string | null {
  if (messages === undefined) return "messages: Field required";
  if (!Array.isArray(messages)) return "messages: Input should be a valid list";
  if (messages.length === 0) return "messages: at least one message is required";
  for (const [i, message] of messages.entries()) {
    const role = isRecord(message) ? message.role : undefined;
    const error =
      checkMessageShape(message, i) ?? (role === "user" ? checkToolResults(messages, i) : null) ?? (role === "assistant" ? checkToolUsesAnswered(messages, i) : null);
    if (error) return error;
  }
  return null;
}

function checkMessageShape(message: unknown, i: number): string | null {
  if (!isRecord(message)) return `messages.${i}: Input should be a valid dictionary`;
  const { role, content } = message;
  if (role !== "user" && role !== "assistant" && role !== "system") return `messages.${i}.role: Input should be 'user', 'assistant' or 'system'`;
  if (i === 0 && role !== "user") return `messages.0.role: the first message must use the "user" role`;
  if (content === "" || (Array.isArray(content) && content.length === 0)) return `messages.${i}: all messages must have non-empty content`;
  if (typeof content === "string") return checkText(content, `messages.${i}.content`);
  if (!Array.isArray(content)) return `messages.${i}.content: Input should be a valid string or list`;
  for (const [j, block] of content.entries()) {
    const error = checkBlock(block, role, `messages.${i}.content.${j}`);
    if (error) return error;
  }
  return role === "assistant" ? checkServerResults(content.filter(isRecord), i) : null;
}

function checkBlock(block: unknown, role: string, path: string): string | null {
  if (!isRecord(block)) return `${path}: Input should be a valid dictionary`;
  const type = String(block.type);
  if (type === "text") return checkText(block.text, `${path}.text`);
  const owner = type === "tool_result" ? "user" : MODEL_TYPES.includes(type) ? "assistant" : undefined;
  if (owner === undefined) return typeof block.type === "string" ? null : `${path}.type: Field required`;
  if (role !== owner) return `${path}: ${type} blocks may only appear in ${owner} messages`;
  switch (type) {
    case "tool_result":
      return typeof block.tool_use_id !== "string" ? `${path}.tool_use_id: Field required` : checkToolResultContent(block.content, `${path}.content`);
    case "tool_use":
    case "server_tool_use":
      if (typeof block.id !== "string" || typeof block.name !== "string") return `${path}: ${type} needs a string id and name`;
      return type === "server_tool_use" || isRecord(block.input) ? null : `${path}.input: Input should be a valid dictionary`;
    case "thinking":
    case "redacted_thinking":
      return checkThinking(block, path);
    default:
      return typeof block.tool_use_id === "string" ? null : `${path}.${type}.tool_use_id: Field required`;
  }
}

function checkToolResultContent(content: unknown, path: string): string | null {
  if (content === undefined) return null;
  if (typeof content === "string") return checkText(content, path);
  if (!Array.isArray(content)) return `${path}: Input should be a valid string or list`;
  for (const [k, block] of content.entries()) {
    const error = !isRecord(block) ? `${path}.${k}: Input should be a valid dictionary` : block.type === "text" ? checkText(block.text, `${path}.${k}.text`) : null;
    if (error) return error;
  }
  return null;
}

/** The model's thinking sent back must verify against the server's signature and carry no cache_control. */
function checkThinking(block: LooseBlock, path: string): string | null {
  if (block.cache_control != null) return `${path}.${String(block.type)}.cache_control: Cache control cannot be set on thinking blocks`;
  if (block.type === "redacted_thinking") return verifyRedactedThinking(block.data) ? null : `${path}: Invalid \`data\` in \`redacted_thinking\` block`;
  if (typeof block.thinking !== "string") return `${path}.thinking.thinking: Field required`;
  if (typeof block.signature !== "string") return `${path}.thinking.signature: Field required`;
  return verifyThinking(block.thinking, block.signature) ? null : `${path}: Invalid \`signature\` in \`thinking\` block`;
}

/** Each server tool result of an assistant message must follow the `server_tool_use` with its id in that message. */
function checkServerResults(blocks: readonly LooseBlock[], i: number): string | null {
  const called = new Set<unknown>();
  for (const [j, block] of blocks.entries()) {
    if (block.type === "server_tool_use") called.add(block.id);
    if (!SERVER_RESULT_TYPES.includes(String(block.type)) || called.has(block.tool_use_id)) continue;
    return `messages.${i}.content.${j}: ${String(block.type)} block(s) provided when no corresponding server_tool_use block with id ${String(block.tool_use_id)} precedes it in the same message`;
  }
  return null;
}

function blocksOf(message: unknown): LooseBlock[] {
  return isRecord(message) && Array.isArray(message.content) ? message.content.filter(isRecord) : [];
}

/** A user message's tool_results come first, each answering a tool_use of the message before, once. */
function checkToolResults(messages: readonly unknown[], i: number): string | null {
  const previous = messages[i - 1];
  const asked = new Set(isRecord(previous) && previous.role === "assistant" ? blocksOf(previous).filter((b) => b.type === "tool_use").map((b) => b.id) : []);
  const seen = new Set<unknown>();
  let otherSeen = false;
  for (const [j, block] of blocksOf(messages[i]).entries()) {
    if (block.type !== "tool_result") {
      otherSeen = true;
      continue;
    }
    const path = `messages.${i}.content.${j}`;
    const id = block.tool_use_id;
    if (otherSeen) return `${path}: tool_result blocks must come before any other content in a user message`;
    if (!asked.has(id)) {
      return `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    if (seen.has(id)) return `${path}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${String(id)}`;
    seen.add(id);
  }
  return null;
}

/** Every tool_use of an assistant message is answered by a tool_result in the next message. */
function checkToolUsesAnswered(messages: readonly unknown[], i: number): string | null {
  const ids = blocksOf(messages[i]).filter((b) => b.type === "tool_use").map((b) => b.id);
  if (ids.length === 0) return null;
  const next = messages[i + 1];
  const answered = new Set(isRecord(next) && next.role === "user" ? blocksOf(next).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id) : []);
  const missing = ids.filter((id) => !answered.has(id));
  if (missing.length === 0) return null;
  return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
}
