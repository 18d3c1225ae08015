// Builds the parameters of one request from the history as it is: tool schemas and cache breakpoints. Pure.
import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParams } from "../model/stream.js";
import type { AnyTool } from "../tools/define.js";
import type { CacheTtl, ContentBlockParam, Effort, MessageParam, ThinkingSetting, ToolChoiceSetting, WebSettings } from "../types.js";

/** What one request is built from: thinking and effort absent leave the API's default; `web` is what the agent's list and the denied list leave; `format` the answer's JSON Schema. */
export interface RequestInput {
  model: string;
  maxTokens: number;
  system: string;
  tools: readonly AnyTool[];
  messages: readonly MessageParam[];
  thinking?: ThinkingSetting | undefined;
  effort?: Effort | undefined;
  web?: WebSettings | undefined;
  toolChoice?: ToolChoiceSetting | undefined;
  format?: Record<string, unknown> | undefined;
  /** The lifetime of the cache breakpoints (see CacheTtl); default `5m`. */
  cacheTtl?: CacheTtl | undefined;
}

const EPHEMERAL = { type: "ephemeral" } as const;
const HOUR = { type: "ephemeral", ttl: "1h" } as const;
/** The API's tool search tool, offered when some tools are deferred (`Tool.deferLoading`). */
export const TOOL_SEARCH_TOOL: Anthropic.ToolSearchToolBm25_20251119 = { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" };

/**
 * The request for the history as it is (sessions/repair.ts keeps it valid). Cache breakpoints: the last tool, the system prompt, the newest message and the
 * last user message before it; an hour long where `cacheTtl` asks, only before five-minute ones (the API's rule). No temperature, top_p or top_k: API 2026-10-21 rejects them.
 */
export function buildRequest(input: RequestInput): MessageParams {
  const prefix = input.cacheTtl === "1h" || input.cacheTtl === "auto" ? HOUR : EPHEMERAL;
  // Deferred only beside a tool that is not: the API refuses a request whose every tool is deferred.
  const defer = input.tools.some((tool) => tool.deferLoading === true) && input.tools.some((tool) => tool.deferLoading !== true);
  const defined: Anthropic.ToolUnion[] = [
    ...input.tools.map((tool): Anthropic.Tool => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema, ...(defer && tool.deferLoading === true && { defer_loading: true }) })),
    ...webTools(input.web),
    ...(defer ? [TOOL_SEARCH_TOOL] : []),
  ];
  // The breakpoint goes on the last tool that is loaded: deferred definitions are not part of the cached prefix.
  const last = defined.findLastIndex((tool) => !("defer_loading" in tool && tool.defer_loading === true));
  const tools = defined.map((tool, i) => (i === last ? { ...tool, cache_control: prefix } : tool));
  const outputConfig = { ...(input.effort && { effort: input.effort }), ...(input.format && { format: { type: "json_schema" as const, schema: input.format } }) };
  const { thinking, toolChoice, messages } = input;
  const newest = messages.length - 1;
  const previous = messages.findLastIndex((m, i) => i < newest && m.role === "user");
  const mark = input.cacheTtl === "1h" ? HOUR : EPHEMERAL;
  return {
    model: input.model,
    max_tokens: input.maxTokens,
    messages: messages.map((m, i) => withBreakpoint(m, i === newest || i === previous ? mark : undefined)),
    ...(input.system.trim() && { system: [{ type: "text", text: input.system, cache_control: prefix }] }),
    ...(tools.length > 0 && { tools }),
    ...(thinking !== undefined && { thinking: thinking === "adaptive" ? { type: "adaptive" } : thinking === "off" ? { type: "disabled" } : { type: "enabled", budget_tokens: thinking } }),
    ...(Object.keys(outputConfig).length > 0 && { output_config: outputConfig }),
    ...(toolChoice !== undefined && tools.length > 0 && { tool_choice: typeof toolChoice === "object" ? { type: "tool", name: toolChoice.tool } : { type: toolChoice } }),
  };
}

/** The server tool definitions of `web` (the newest versions the SDK types), search first; the provider runs them, so they carry no schema. */
function webTools({ search, fetch }: WebSettings = {}): Anthropic.ToolUnion[] {
  const domains = ({ allowedDomains, blockedDomains }: { allowedDomains?: string[]; blockedDomains?: string[] }) => ({
    ...(allowedDomains && { allowed_domains: allowedDomains }),
    ...(blockedDomains && { blocked_domains: blockedDomains }),
  });
  const uses = (maxUses: number | undefined) => (maxUses !== undefined ? { max_uses: maxUses } : {});
  const tools: Anthropic.ToolUnion[] = [];
  if (search) tools.push({ type: "web_search_20260318", name: "web_search", ...uses(search.maxUses), ...domains(search) });
  if (fetch) {
    const content = fetch.maxContentTokens !== undefined ? { max_content_tokens: fetch.maxContentTokens } : {};
    tools.push({ type: "web_fetch_20260318", name: "web_fetch", ...uses(fetch.maxUses), ...content, ...domains(fetch) });
  }
  return tools;
}

/** A copy with no cache_control but, when `mark` is given, that one on its last cacheable block. */
function withBreakpoint(message: MessageParam, mark: Anthropic.CacheControlEphemeral | undefined): MessageParam {
  // Unmarked and clean, as most of a long history is: sent as it is, not copied every round.
  if (!mark && (typeof message.content === "string" || !message.content.some(hasCacheControl))) return message;
  const blocks: ContentBlockParam[] =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : message.content.map((b) => (hasCacheControl(b) ? stripCacheControl(b) : b));
  // Thinking blocks and blank text cannot carry cache_control (the API refuses both); every other block here can.
  const index = mark ? blocks.findLastIndex((b) => b.type !== "thinking" && b.type !== "redacted_thinking" && !(b.type === "text" && b.text.trim() === "")) : -1;
  if (index >= 0) blocks[index] = { ...blocks[index]!, cache_control: mark } as ContentBlockParam;
  return { role: message.role, content: blocks };
}

function stripCacheControl(block: ContentBlockParam): ContentBlockParam {
  const { cache_control: _dropped, ...rest } = block as ContentBlockParam & { cache_control?: unknown };
  if (rest.type === "tool_result" && Array.isArray(rest.content)) {
    return { ...rest, content: rest.content.map((inner) => stripCacheControl(inner as ContentBlockParam)) } as ContentBlockParam;
  }
  return rest as ContentBlockParam;
}

function hasCacheControl(block: ContentBlockParam): boolean {
  if ("cache_control" in block && block.cache_control) return true;
  return block.type === "tool_result" && Array.isArray(block.content) && block.content.some((inner) => hasCacheControl(inner as ContentBlockParam));
}
