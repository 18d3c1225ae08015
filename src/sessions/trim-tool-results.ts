// Trimming oversized old tool results in what is sent to the model; the session file keeps them whole.
import { cutMiddle, toolResultText } from "../content.js";
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from "../types.js";

/**
 * `messages` with every tool result but the `keepRecent` newest cut to `maxChars` characters of text and a marker
 * saying how much was cut (images and documents kept). The input is not mutated; unchanged messages are the same
 * objects. Changing an old message invalidates the prompt cache from there on: call it when the context is tight
 * (before compacting), not on every request.
 */
export function trimOldToolResults(messages: MessageParam[], options: { keepRecent: number; maxChars: number }): MessageParam[] {
  let toKeep = options.keepRecent;
  const out = [...messages];
  for (let i = out.length - 1; i >= 0; i--) {
    const message = out[i];
    if (message === undefined || message.role !== "user" || typeof message.content === "string") continue;
    let changed = false;
    const content = [...message.content];
    for (let j = content.length - 1; j >= 0; j--) {
      const block = content[j];
      if (block?.type !== "tool_result") continue;
      if (toKeep > 0) {
        toKeep--;
        continue;
      }
      const trimmed = trimResult(block, options.maxChars);
      if (trimmed !== block) {
        content[j] = trimmed;
        changed = true;
      }
    }
    if (changed) out[i] = { ...message, content };
  }
  return out;
}

function trimResult(block: ToolResultBlockParam, maxChars: number): ToolResultBlockParam {
  const text = toolResultText(block.content, "skip");
  if (text.length <= maxChars) return block;
  const marker = (cut: number): string => `\n[… ${cut} characters of this old tool result trimmed from the request; the session file keeps it whole]`;
  const kept: ContentBlockParam = { type: "text", text: cutMiddle(text, maxChars, marker, 1) };
  const others = typeof block.content === "string" || block.content === undefined ? [] : block.content.filter((part) => part.type !== "text");
  return { ...block, content: [kept as { type: "text"; text: string }, ...others] };
}
