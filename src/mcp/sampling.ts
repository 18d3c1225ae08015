// A server's sampling request served by the turn's own model, once the gate (the person, or the approvals file) allows it.
import type Anthropic from "@anthropic-ai/sdk";
import type { ToolContext } from "../tools/define.js";
import { API_IMAGE_TYPES } from "./resource-contents.js";

/** The most output one sampling request may ask for, whatever the server says. */
export const MAX_SAMPLING_TOKENS = 8_192;

type McpContent = { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
type SamplingParams = { messages?: unknown; systemPrompt?: unknown; maxTokens?: unknown; stopSequences?: unknown; tools?: unknown };

/** The gate's name of a server's sampling: not a tool name (`mcp__<server>__*` globs never match it); "always" saves it. */
export function samplingSubject(server: string): string {
  return `mcp:${server}:sampling`;
}

/**
 * Answers `sampling/createMessage` with the turn's model, only during a call of the server's tools, once the gate allows
 * it (`run` and cron decline unless the approvals file allows it). A refusal or failure throws one line the server receives.
 */
export async function serveSampling(server: string, params: SamplingParams, context: ToolContext | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
  const sample = context?.turn?.sample;
  if (!context || !sample) throw new Error(`miniclaw serves sampling only while one of the server's tools runs in a turn`);
  if (params.tools !== undefined) throw new Error("miniclaw does not offer tools to sampling requests");
  const messages = toMessages(params.messages);
  const system = typeof params.systemPrompt === "string" ? params.systemPrompt : undefined;
  const maxTokens = Math.min(typeof params.maxTokens === "number" && params.maxTokens > 0 ? Math.floor(params.maxTokens) : 1024, MAX_SAMPLING_TOKENS);
  const judged = await context.gate.check({
    id: context.toolUseId,
    tool: samplingSubject(server),
    input: { ...(system !== undefined && { systemPrompt: system }), messages: messages.map((m) => `${m.role}: ${textOf(m.content)}`), maxTokens },
    access: "ask",
    reason: `the MCP server "${server}" asks the model to answer a prompt of its own (sampling), at the turn's cost`,
  });
  const decision = await judged.settle();
  if (!decision.allowed) throw new Error(`declined: ${decision.reason}`);
  const stopSequences = Array.isArray(params.stopSequences) ? params.stopSequences.filter((s): s is string => typeof s === "string") : undefined;
  const message = await sample({ messages, maxTokens, ...(system !== undefined && { system }), ...(stopSequences && { stopSequences }) }, AbortSignal.any([context.signal, signal]));
  return {
    role: "assistant",
    content: { type: "text", text: textOf(message.content as Anthropic.ContentBlockParam[]) },
    model: message.model,
    stopReason: message.stop_reason === "max_tokens" ? "maxTokens" : message.stop_reason === "stop_sequence" ? "stopSequence" : "endTurn",
  };
}

/** MCP sampling messages as API messages: text as text, images the API takes as images, other media named in text; same roles merged. */
function toMessages(value: unknown): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const item of Array.isArray(value) ? (value as Array<{ role?: unknown; content?: unknown }>) : []) {
    const role = item.role === "assistant" ? "assistant" : "user";
    const parts = (Array.isArray(item.content) ? item.content : [item.content]) as McpContent[];
    const blocks = parts.flatMap(toBlock);
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content = [...(last.content as Anthropic.ContentBlockParam[]), ...blocks];
    else out.push({ role, content: blocks });
  }
  if (out[0]?.role !== "user") out.unshift({ role: "user", content: [{ type: "text", text: "(the server's conversation starts with the assistant)" }] });
  return out;
}

function toBlock(part: McpContent): Array<Anthropic.TextBlockParam | Anthropic.ImageBlockParam> {
  if (typeof part !== "object" || part === null) return [];
  if (part.type === "text" && typeof part.text === "string" && part.text.trim() !== "") return [{ type: "text", text: part.text }];
  if (part.type === "image" && typeof part.data === "string" && typeof part.mimeType === "string" && API_IMAGE_TYPES.has(part.mimeType)) {
    return [{ type: "image", source: { type: "base64", media_type: part.mimeType as "image/png", data: part.data } }];
  }
  return part.type === "text" ? [] : [{ type: "text", text: `[${String(part.type)}${typeof part.mimeType === "string" ? ` ${part.mimeType}` : ""} left out]` }];
}

function textOf(content: string | readonly Anthropic.ContentBlockParam[]): string {
  if (typeof content === "string") return content;
  return content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}
