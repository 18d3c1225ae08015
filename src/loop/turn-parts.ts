// Small builders the loop uses: the user message of a turn and the context of one tool call.
import type { ToolContext } from "../tools/define.js";
import type { ContentBlockParam, MessageParam, ToolUseBlock } from "../types.js";
import type { TurnRuntime } from "./options.js";

/**
 * The user message of a turn. The current time travels here, in a block of its own,
 * never in the system prompt, so the prompt prefix stays byte-identical and cached.
 */
export function userMessage(text: string, now: number | undefined): MessageParam {
  const blocks: MessageParam["content"] = [{ type: "text", text: text.trim() ? text : "(empty message)" }];
  if (now !== undefined) blocks.push({ type: "text", text: `<context>Current time: ${formatTime(now)}</context>` });
  return { role: "user", content: blocks };
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** `Sunday 2026-11-29 15:40 UTC`, without Intl (its first use costs ~15 ms at start-up). */
function formatTime(ms: number): string {
  const d = new Date(ms);
  return `${WEEKDAYS[d.getUTCDay()]} ${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The context of one tool call: every effect the runtime injects. */
export function toolContext(rt: TurnRuntime, toolUseId: string): ToolContext {
  return {
    cwd: rt.cwd,
    workspace: rt.workspace,
    signal: rt.signal,
    clock: rt.clock,
    spawn: rt.spawn,
    env: rt.childEnv,
    emit: rt.emit,
    toolUseId,
    permissions: rt.permissions,
  };
}

/**
 * The tool calls of a response made safe to store and answer: ids made unique within
 * the conversation (a compatible server may reuse them), and a non-object input (which the API would reject in every later
 * request) stored as `{}`. `calls` keep the model's original input, so the error
 * result tells it what it sent.
 */
export function normalizeToolUses(content: ContentBlockParam[], history: readonly MessageParam[]): { content: ContentBlockParam[]; calls: ToolUseBlock[] } {
  const seen = new Map<string, number>();
  for (const message of history) {
    if (typeof message.content !== "string") for (const b of message.content) if (b.type === "tool_use") seen.set(b.id, 1);
  }
  const calls: ToolUseBlock[] = [];
  const stored = content.map((block): ContentBlockParam => {
    if (block.type !== "tool_use") return block;
    const n = (seen.get(block.id) ?? 0) + 1;
    seen.set(block.id, n);
    const id = n === 1 ? block.id : `${block.id}_${n}`;
    calls.push({ ...(block as ToolUseBlock), id });
    const input = block.input !== null && typeof block.input === "object" && !Array.isArray(block.input) ? block.input : {};
    return { ...block, id, input };
  });
  return { content: stored, calls };
}
