// Trimming oversized old tool results in what is sent to the model; the session file keeps them whole.
import { cutMiddle, toolResultText } from "../content.js";
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from "../types.js";

/** Options of `trimOldToolResults`. */
export interface TrimOptions {
  /** The most recent tool results left untouched, counted in tool_result blocks. */
  keepRecent: number;
  /** Results longer than this, in characters, are cut to it. */
  maxChars: number;
}

/**
 * Returns `messages` with every tool result except the `keepRecent` newest cut to
 * `maxChars` characters of text, followed by a marker naming how much was cut.
 * Images and documents in old results are kept. New arrays and blocks are made
 * where something changes; the input is not mutated and unchanged messages are
 * returned as the same objects.
 *
 * Each call moves the boundary as results arrive, and changing an old message
 * invalidates the prompt cache from that message on: call it when the context is
 * tight (before resorting to compaction), not on every request.
 */
export function trimOldToolResults(messages: MessageParam[], options: TrimOptions): MessageParam[] {
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
