// Reading a request's conversation loosely: nothing on the wire is trusted, so every reader here takes anything.
import type { RequestBody } from "./types.js";

/** A content block as found on the wire. */
export type LooseBlock = Record<string, unknown>;

/** A message as found on the wire, its content normalised to blocks. */
export type LooseMessage = { role: string; blocks: LooseBlock[] };

/** Not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Content (a string or block array) as blocks; a string is one text block. */
export function contentBlocks(content: unknown): LooseBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

/** The request's messages, skipping entries that are not objects. */
export function looseMessages(body: RequestBody): LooseMessage[] {
  const messages: unknown = body.messages;
  return Array.isArray(messages) ? messages.filter(isRecord).map((m) => ({ role: String(m.role), blocks: contentBlocks(m.content) })) : [];
}

function blocksText(content: unknown): string {
  return contentBlocks(content)
    .flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : []))
    .join("\n");
}

/** Text of the last user message (its text blocks joined by newlines; tool_result blocks ignored). */
export function lastUserText(body: RequestBody): string {
  return blocksText(looseMessages(body).findLast((m) => m.role === "user")?.blocks);
}

/** The system prompt's text, whether a string or text blocks. */
export function systemText(body: RequestBody): string {
  return blocksText(body.system);
}

/** The tool_results of the last user message, named from the tool_uses of the assistant message before it. */
export function lastToolResults(body: RequestBody): Array<{ name: string | undefined; text: string }> {
  const messages = looseMessages(body);
  const index = messages.findLastIndex((m) => m.role === "user");
  const previous = messages[index - 1];
  const names = new Map<unknown, string>();
  for (const block of previous?.role === "assistant" ? previous.blocks : []) {
    if (block.type === "tool_use" && typeof block.name === "string") names.set(block.id, block.name);
  }
  return (messages[index]?.blocks ?? []).filter((b) => b.type === "tool_result").map((b) => ({ name: names.get(b.tool_use_id), text: blocksText(b.content) }));
}

/** Text of the last tool_result anywhere in the request, or "" when there is none. */
export function lastToolResultText(body: RequestBody): string {
  for (const message of looseMessages(body).reverse()) {
    const result = message.blocks.findLast((b) => b.type === "tool_result");
    if (result) return blocksText(result.content);
  }
  return "";
}

/** True for a thinking or redacted_thinking block. */
export function isThinkingBlock(block: LooseBlock): boolean {
  return block.type === "thinking" || block.type === "redacted_thinking";
}

/** The thinking and redacted_thinking blocks a content list starts with. */
export function leadingThinking(blocks: readonly LooseBlock[]): LooseBlock[] {
  const end = blocks.findIndex((b) => !isThinkingBlock(b));
  return blocks.slice(0, end === -1 ? blocks.length : end);
}

/** The assistant messages ending at `end` (exclusive) as one turn, as the API merges them; null when messages[end - 1] is not the assistant's. */
export function assistantTurnBefore(messages: readonly LooseMessage[], end: number): { start: number; blocks: LooseBlock[] } | null {
  let start = end;
  while (start > 0 && messages[start - 1]?.role === "assistant") start--;
  return start === end ? null : { start, blocks: messages.slice(start, end).flatMap((m) => m.blocks) };
}

/** True when the request ends with an assistant message the model is to continue (a `pause_turn` continuation). */
export function isContinuation(body: RequestBody): boolean {
  return looseMessages(body).at(-1)?.role === "assistant";
}
