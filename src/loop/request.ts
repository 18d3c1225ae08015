// Builds the parameters of one request from the history as it is: tool schemas and cache breakpoints. Pure.
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParams } from "../model/stream.js";
import type { AnyTool } from "../tools/define.js";
import type { ContentBlockParam, Effort, MessageParam, ThinkingSetting, ToolChoiceSetting, WebSettings } from "../types.js";

export interface RequestInput {
  model: string;
  maxTokens: number;
  system: string;
  tools: readonly AnyTool[];
  messages: readonly MessageParam[];
  /** Absent: the API's default. */
  thinking?: ThinkingSetting | undefined;
  effort?: Effort | undefined;
  /** The web server tools to offer, after the agent's tool list and the denied list. */
  web?: WebSettings | undefined;
  /** Only on the request that opens a turn. */
  toolChoice?: ToolChoiceSetting | undefined;
  /** The JSON Schema the final answer must follow (`output_config.format`). */
  format?: Record<string, unknown> | undefined;
}

/** The newest versions of the web server tools that the SDK types. */
export const WEB_SEARCH_TOOL_TYPE = "web_search_20260318";
export const WEB_FETCH_TOOL_TYPE = "web_fetch_20260318";

const EPHEMERAL = { type: "ephemeral" } as const;
/** The API's tool search tool, offered when some tools are deferred (`Tool.deferLoading`). */
export const TOOL_SEARCH_TOOL: Anthropic.ToolSearchToolBm25_20251119 = { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" };

/**
 * The request for the current history, which is valid already (sessions/repair.ts
 * keeps it so as messages enter it). Breakpoints (4 at most): the last tool, the
 * system prompt, the newest message, and the newest message of the previous request
 * (the last user message before the newest one), so each request reads the one before
 * it from the cache. No temperature, top_p or top_k: API version 2026-10-21 rejects them.
 */
export function buildRequest(input: RequestInput): MessageParams {
  // Deferred only beside a tool that is not: the API refuses a request whose every tool is deferred.
  const defer = input.tools.some((tool) => tool.deferLoading === true) && input.tools.some((tool) => tool.deferLoading !== true);
  const defined: Anthropic.ToolUnion[] = [
    ...input.tools.map((tool): Anthropic.Tool => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema, ...(defer && tool.deferLoading === true && { defer_loading: true }) })),
    ...webTools(input.web),
    ...(defer ? [TOOL_SEARCH_TOOL] : []),
  ];
  // The breakpoint goes on the last tool that is loaded: deferred definitions are not part of the cached prefix.
  const last = defined.findLastIndex((tool) => !("defer_loading" in tool && tool.defer_loading === true));
  const tools = defined.map((tool, i) => (i === last ? { ...tool, cache_control: EPHEMERAL } : tool));
  const outputConfig = { ...(input.effort && { effort: input.effort }), ...(input.format && { format: { type: "json_schema" as const, schema: input.format } }) };
  const params: MessageParams = {
    model: input.model,
    max_tokens: input.maxTokens,
    messages: markCacheBreakpoints(input.messages),
    ...(input.system.trim() && { system: [{ type: "text", text: input.system, cache_control: EPHEMERAL }] }),
    ...(tools.length > 0 && { tools }),
    ...(input.thinking !== undefined && { thinking: thinkingParam(input.thinking) }),
    ...(Object.keys(outputConfig).length > 0 && { output_config: outputConfig }),
    ...(input.toolChoice !== undefined && tools.length > 0 && { tool_choice: toolChoiceParam(input.toolChoice) }),
  };
  return params;
}

function thinkingParam(thinking: ThinkingSetting): Anthropic.ThinkingConfigParam {
  if (thinking === "adaptive") return { type: "adaptive" };
  if (thinking === "off") return { type: "disabled" };
  return { type: "enabled", budget_tokens: thinking };
}

function toolChoiceParam(choice: ToolChoiceSetting): Anthropic.ToolChoice {
  return typeof choice === "object" ? { type: "tool", name: choice.tool } : { type: choice };
}

/** The server tool definitions of `web`, search first; the provider runs them, so they carry no schema. */
function webTools(web: WebSettings | undefined): Anthropic.ToolUnion[] {
  const tools: Anthropic.ToolUnion[] = [];
  const { search, fetch } = web ?? {};
  if (search) {
    tools.push({
      type: WEB_SEARCH_TOOL_TYPE,
      name: "web_search",
      ...(search.maxUses !== undefined && { max_uses: search.maxUses }),
      ...(search.allowedDomains && { allowed_domains: search.allowedDomains }),
      ...(search.blockedDomains && { blocked_domains: search.blockedDomains }),
    });
  }
  if (fetch) {
    tools.push({
      type: WEB_FETCH_TOOL_TYPE,
      name: "web_fetch",
      ...(fetch.maxUses !== undefined && { max_uses: fetch.maxUses }),
      ...(fetch.maxContentTokens !== undefined && { max_content_tokens: fetch.maxContentTokens }),
      ...(fetch.allowedDomains && { allowed_domains: fetch.allowedDomains }),
      ...(fetch.blockedDomains && { blocked_domains: fetch.blockedDomains }),
    });
  }
  return tools;
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
  // Unmarked and clean, as most of a long history is: sent as it is, not copied every round.
  if (!mark && (typeof message.content === "string" || !message.content.some(hasCacheControl))) return message;
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
