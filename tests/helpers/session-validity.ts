// A checker of the rules the Messages API applies to a message sequence, for session tests.
import type { MessageParam } from "../../src/types.js";

/**
 * The problems of `messages` as the body of a request (empty when valid): it
 * starts with a user message, roles alternate, no content is empty, every
 * tool_use is answered in the next message by tool_results placed before any
 * other block, no tool_result lacks its tool_use in the message just before, and
 * tool_use ids are unique.
 */
export function messageProblems(messages: MessageParam[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  if (messages.length > 0 && messages[0]?.role !== "user") problems.push("0: the first message is not a user message");
  messages.forEach((message, i) => {
    const previous = messages[i - 1];
    if (previous?.role === message.role) problems.push(`${i}: two ${message.role} messages in a row`);
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (blocks.length === 0) problems.push(`${i}: empty content`);
    for (const block of blocks) if (block.type === "text" && "text" in block && block.text === "") problems.push(`${i}: empty text block`);
    const asked = toolUses(previous);
    const answered: string[] = [];
    let afterOther = false;
    for (const block of blocks) {
      if (block.type === "tool_use" && "id" in block) {
        if (seen.has(block.id)) problems.push(`${i}: duplicate tool_use id ${block.id}`);
        seen.add(block.id);
      }
      if (block.type !== "tool_result") {
        afterOther = true;
        continue;
      }
      const id = (block as { tool_use_id: string }).tool_use_id;
      if (!asked.includes(id)) problems.push(`${i}: tool_result ${id} has no tool_use in the previous message`);
      if (afterOther) problems.push(`${i}: tool_result ${id} comes after another kind of block`);
      answered.push(id);
    }
    for (const id of asked) if (!answered.includes(id)) problems.push(`${i}: tool_use ${id} of message ${i - 1} is not answered`);
  });
  const last = messages.at(-1);
  for (const id of toolUses(last)) problems.push(`${messages.length - 1}: tool_use ${id} is never answered`);
  return problems;
}

/**
 * The problems of a loaded session's messages and of the request made by
 * appending one user message to them (what the loop does next). A loaded session
 * may end with a user message still waiting for its reply; the API joins it with
 * the new one into a single turn, and so does this check.
 */
export function nextRequestProblems(messages: MessageParam[]): string[] {
  const next: MessageParam = { role: "user", content: "next" };
  const last = messages.at(-1);
  const request =
    last?.role === "user"
      ? [...messages.slice(0, -1), { role: "user" as const, content: [...blocksOf(last), { type: "text" as const, text: "next" }] }]
      : [...messages, next];
  return [...messageProblems(messages), ...messageProblems(request).map((problem) => `next request: ${problem}`)];
}

function blocksOf(message: MessageParam): Exclude<MessageParam["content"], string> {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

function toolUses(message: MessageParam | undefined): string[] {
  if (message?.role !== "assistant" || typeof message.content === "string") return [];
  return message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
}
