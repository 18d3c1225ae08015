// Makes a message list one the API accepts; applied to every request just before it is sent.
import { toolUseIds } from "../sessions/repair.js";
import { result } from "../tools/dispatch.js";
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from "../types.js";

export const MISSING_RESULT_TEXT = "No result was recorded for this tool call (the turn was interrupted). Do not assume it ran.";

/**
 * Returns a copy of `messages` that satisfies the API's rules, and what was repaired:
 * every `tool_use` answered by a `tool_result` in the very next user message (missing
 * ones filled with an is_error result), stray and duplicate results dropped, tool
 * results first in their message, no empty text block, no empty message, consecutive
 * user messages merged, and a user message first. Pure; never throws.
 */
export function repairMessages(messages: readonly MessageParam[]): { messages: MessageParam[]; repairs: string[] } {
  const repairs: string[] = [];
  const seenIds = new Set<string>();
  const cleaned = mergeUsers(
    messages.map((m) => ({ role: m.role, content: fixToolUses(dropEmptyText(toBlocks(m.content), repairs), seenIds, repairs) })),
  );
  const out: MessageParam[] = [];
  for (let i = 0; i < cleaned.length; i++) {
    const message = cleaned[i]!;
    const prev = out[out.length - 1];
    if (message.role === "user") {
      const expected = prev?.role === "assistant" ? toolUseIds(prev) : [];
      const content = answerToolUses(message.content as ContentBlockParam[], expected, repairs);
      if (content.length > 0) out.push({ role: "user", content });
      continue;
    }
    if (message.content.length === 0) continue;
    if (prev?.role === "assistant" && toolUseIds(prev).length > 0) {
      out.push({ role: "user", content: answerToolUses([], toolUseIds(prev), repairs) });
    }
    out.push(message);
  }
  const last = out[out.length - 1];
  if (last?.role === "assistant" && toolUseIds(last).length > 0) {
    out.push({ role: "user", content: answerToolUses([], toolUseIds(last), repairs) });
  }
  if (out[0]?.role === "assistant") {
    out.unshift({ role: "user", content: [{ type: "text", text: "(earlier conversation omitted)" }] });
    repairs.push("added a user message before a leading assistant message");
  }
  return { messages: mergeUsers(out), repairs };
}

/** Keeps the results that answer `expected` (in order, missing ones filled), then the other blocks. */
function answerToolUses(content: ContentBlockParam[], expected: string[], repairs: string[]): ContentBlockParam[] {
  const results = new Map<string, ToolResultBlockParam>();
  const others: ContentBlockParam[] = [];
  for (const block of content) {
    if (block.type !== "tool_result") {
      others.push(block);
    } else if (!expected.includes(block.tool_use_id)) {
      repairs.push(`dropped a tool_result for unknown tool_use ${block.tool_use_id}`);
    } else if (results.has(block.tool_use_id)) {
      repairs.push(`dropped a duplicate tool_result for ${block.tool_use_id}`);
    } else {
      results.set(block.tool_use_id, block);
    }
  }
  const answered = expected.map((id) => {
    const found = results.get(id);
    if (found) return found;
    repairs.push(`answered tool_use ${id} with an error result`);
    return result(id, MISSING_RESULT_TEXT, true);
  });
  return [...answered, ...others];
}

function toBlocks(content: MessageParam["content"]): ContentBlockParam[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : [...content];
}

function dropEmptyText(blocks: ContentBlockParam[], repairs: string[]): ContentBlockParam[] {
  return blocks.flatMap((block): ContentBlockParam[] => {
    if (block.type === "text" && !block.text.trim()) {
      repairs.push("dropped an empty text block");
      return [];
    }
    if (block.type === "tool_result" && Array.isArray(block.content)) {
      const inner = block.content.filter((c) => c.type !== "text" || c.text.trim());
      const content = inner.length > 0 ? inner : [{ type: "text" as const, text: "(no output)" }];
      return [{ ...block, content }];
    }
    if (block.type === "tool_result" && typeof block.content === "string" && !block.content.trim()) {
      return [{ ...block, content: "(no output)" }];
    }
    return [block];
  });
}

/** Drops a tool_use whose id was used before, and stores a non-object input as `{}` (the API rejects both). */
function fixToolUses(blocks: ContentBlockParam[], seen: Set<string>, repairs: string[]): ContentBlockParam[] {
  return blocks.flatMap((block): ContentBlockParam[] => {
    if (block.type !== "tool_use") return [block];
    if (seen.has(block.id)) {
      repairs.push(`dropped a second tool_use with id ${block.id}`);
      return [];
    }
    seen.add(block.id);
    if (block.input !== null && typeof block.input === "object" && !Array.isArray(block.input)) return [block];
    repairs.push(`replaced the non-object input of tool_use ${block.id}`);
    return [{ ...block, input: {} }];
  });
}

/** Merges consecutive user messages, tool results first, so the result-first rule holds. */
function mergeUsers(messages: MessageParam[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const message of messages) {
    const prev = out[out.length - 1];
    if (prev?.role === "user" && message.role === "user") {
      const blocks = [...(prev.content as ContentBlockParam[]), ...(message.content as ContentBlockParam[])];
      const results = blocks.filter((b) => b.type === "tool_result");
      out[out.length - 1] = { role: "user", content: [...results, ...blocks.filter((b) => b.type !== "tool_result")] };
    } else {
      out.push(message);
    }
  }
  return out;
}
