// Validation of the `messages` array: roles, empty content, text blocks, tool_use / tool_result pairing; the model's own blocks go to validate-blocks.
import { isRecord } from "./conversation.js";
import { checkModelBlock, checkServerResults, isModelBlock } from "./validate-blocks.js";

type Block = Record<string, unknown>;

const EMPTY_TEXT = "text content blocks must be non-empty";
const BLANK_TEXT = "text content blocks must contain non-whitespace text";


/** The error for a text value that is empty or only whitespace, else null. */
export function checkText(text: unknown, path: string): string | null {
  if (typeof text !== "string") return `${path}: Input should be a valid string`;
  if (text === "") return `${path}: ${EMPTY_TEXT}`;
  if (text.trim() === "") return `${path}: ${BLANK_TEXT}`;
  return null;
}

function checkToolResultContent(content: unknown, path: string): string | null {
  if (content === undefined) return null;
  if (typeof content === "string") return checkText(content, path);
  if (!Array.isArray(content)) return `${path}: Input should be a valid string or list`;
  for (const [k, block] of content.entries()) {
    if (!isRecord(block)) return `${path}.${k}: Input should be a valid dictionary`;
    if (block.type === "text") {
      const error = checkText(block.text, `${path}.${k}.text`);
      if (error) return error;
    }
  }
  return null;
}

function checkBlock(block: unknown, role: string, path: string): string | null {
  if (!isRecord(block)) return `${path}: Input should be a valid dictionary`;
  switch (block.type) {
    case "text":
      return checkText(block.text, `${path}.text`);
    case "tool_use":
      if (role !== "assistant") return `${path}: tool_use blocks may only appear in assistant messages`;
      if (typeof block.id !== "string" || typeof block.name !== "string") return `${path}: tool_use needs a string id and name`;
      return isRecord(block.input) ? null : `${path}.input: Input should be a valid dictionary`;
    case "tool_result":
      if (role !== "user") return `${path}: tool_result blocks may only appear in user messages`;
      if (typeof block.tool_use_id !== "string") return `${path}.tool_use_id: Field required`;
      return checkToolResultContent(block.content, `${path}.content`);
    default:
      if (isModelBlock(block.type)) return checkModelBlock(block, role, path);
      return typeof block.type === "string" ? null : `${path}.type: Field required`;
  }
}

function checkMessageShape(message: unknown, i: number): string | null {
  if (!isRecord(message)) return `messages.${i}: Input should be a valid dictionary`;
  const { role, content } = message;
  if (role !== "user" && role !== "assistant" && role !== "system") {
    return `messages.${i}.role: Input should be 'user', 'assistant' or 'system'`;
  }
  if (i === 0 && role !== "user") return `messages.0.role: the first message must use the "user" role`;
  if (content === "" || (Array.isArray(content) && content.length === 0)) {
    return `messages.${i}: all messages must have non-empty content`;
  }
  if (typeof content === "string") return checkText(content, `messages.${i}.content`);
  if (!Array.isArray(content)) return `messages.${i}.content: Input should be a valid string or list`;
  for (const [j, block] of content.entries()) {
    const error = checkBlock(block, role, `messages.${i}.content.${j}`);
    if (error) return error;
  }
  return role === "assistant" ? checkServerResults(content.filter(isRecord), i) : null;
}

function blocksOf(message: unknown): Block[] {
  return isRecord(message) && Array.isArray(message.content) ? message.content.filter(isRecord) : [];
}

function checkToolResults(messages: readonly unknown[], i: number): string | null {
  const blocks = blocksOf(messages[i]);
  const previous = messages[i - 1];
  const asked = new Set(
    isRecord(previous) && previous.role === "assistant"
      ? blocksOf(previous).filter((b) => b.type === "tool_use").map((b) => b.id)
      : [],
  );
  const seen = new Set<unknown>();
  let otherSeen = false;
  for (const [j, block] of blocks.entries()) {
    if (block.type !== "tool_result") {
      otherSeen = true;
      continue;
    }
    const path = `messages.${i}.content.${j}`;
    if (otherSeen) return `${path}: tool_result blocks must come before any other content in a user message`;
    if (!asked.has(block.tool_use_id)) {
      return `${path}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    if (seen.has(block.tool_use_id)) {
      return `${path}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${String(block.tool_use_id)}`;
    }
    seen.add(block.tool_use_id);
  }
  return null;
}

function checkToolUsesAnswered(messages: readonly unknown[], i: number): string | null {
  const ids = blocksOf(messages[i]).filter((b) => b.type === "tool_use").map((b) => b.id);
  if (ids.length === 0) return null;
  const next = messages[i + 1];
  const answered = new Set(
    isRecord(next) && next.role === "user"
      ? blocksOf(next).filter((b) => b.type === "tool_result").map((b) => b.tool_use_id)
      : [],
  );
  const missing = ids.filter((id) => !answered.has(id));
  if (missing.length === 0) return null;
  return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
}

/** The first problem of a `messages` value, in the API's wording where known, or null. */
export function validateMessages(messages: unknown): string | null {
  if (messages === undefined) return "messages: Field required";
  if (!Array.isArray(messages)) return "messages: Input should be a valid list";
  if (messages.length === 0) return "messages: at least one message is required";
  for (const [i, message] of messages.entries()) {
    const error =
      checkMessageShape(message, i) ??
      (isRecord(message) && message.role === "user" ? checkToolResults(messages, i) : null) ??
      (isRecord(message) && message.role === "assistant" ? checkToolUsesAnswered(messages, i) : null);
    if (error) return error;
  }
  return null;
}
