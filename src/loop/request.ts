// Builds the parameters of one request from the history as it is: tool schemas and cache breakpoints. Pure.
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParams } from "../model/stream.js";
import type { AnyTool } from "../tools/define.js";
import type { ContentBlockParam, MessageParam } from "../types.js";

export interface RequestInput {
  model: string;
  maxTokens: number;
  system: string;
  tools: readonly AnyTool[];
  messages: readonly MessageParam[];
}

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * The request for the current history, which is valid already (sessions/repair.ts
 * keeps it so as messages enter it). Breakpoints (4 at most): the last tool, the
 * system prompt, the newest message, and the newest message of the previous request
 * (the last user message before the newest one), so each request reads the one before
 * it from the cache. No temperature, top_p or top_k: API version 2026-10-21 rejects them.
 */
export function buildRequest(input: RequestInput): MessageParams {
  const tools: Anthropic.Tool[] = input.tools.map((tool, i) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
    ...(i === input.tools.length - 1 && { cache_control: EPHEMERAL }),
  }));
  const params: MessageParams = {
    model: input.model,
    max_tokens: input.maxTokens,
    messages: markCacheBreakpoints(input.messages),
    ...(input.system.trim() && { system: [{ type: "text", text: input.system, cache_control: EPHEMERAL }] }),
    ...(tools.length > 0 && { tools }),
  };
  return params;
}

/** Copies the messages, with a cache breakpoint on the newest message and on the previous request's newest. */
function markCacheBreakpoints(messages: readonly MessageParam[]): Anthropic.MessageParam[] {
  const last = messages.length - 1;
  let previous = -1;
  for (let i = last - 1; i >= 0; i--) {
    if (messages[i]!.role === "user") {
      previous = i;
      break;
    }
  }
  return messages.map((m, i) => withBreakpoint(m, i === last || i === previous));
}

/** A copy with no cache_control but, when `mark`, one on its last cacheable block. */
function withBreakpoint(message: MessageParam, mark: boolean): MessageParam {
  if (typeof message.content === "string" && !mark) return message;
  const blocks: ContentBlockParam[] =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : message.content.map((b) => (hasCacheControl(b) ? stripCacheControl(b) : b));
  if (!mark) return { role: message.role, content: blocks };
  const index = findLastCacheable(blocks);
  if (index < 0) return { role: message.role, content: blocks };
  blocks[index] = { ...blocks[index]!, cache_control: EPHEMERAL } as ContentBlockParam;
  return { role: message.role, content: blocks };
}

function stripCacheControl(block: ContentBlockParam): ContentBlockParam {
  const { cache_control: _dropped, ...rest } = block as ContentBlockParam & { cache_control?: unknown };
  if (rest.type === "tool_result" && Array.isArray(rest.content)) {
    return { ...rest, content: rest.content.map((inner) => stripCacheControl(inner as ContentBlockParam)) } as ContentBlockParam;
  }
  return rest as ContentBlockParam;
}

/** Whether a block, or a block inside a tool result, carries cache_control. */
function hasCacheControl(block: ContentBlockParam): boolean {
  if ("cache_control" in block && block.cache_control) return true;
  return block.type === "tool_result" && Array.isArray(block.content) && block.content.some((inner) => hasCacheControl(inner as ContentBlockParam));
}

/** Thinking blocks and blank text cannot carry cache_control (the API refuses both); every other block here can. */
function findLastCacheable(blocks: ContentBlockParam[]): number {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    if (block.type === "thinking" || block.type === "redacted_thinking") continue;
    if (block.type === "text" && block.text.trim() === "") continue;
    return i;
  }
  return -1;
}
