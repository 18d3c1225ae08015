// Thinking in replies: whether a request lets the model think, and the signed thinking blocks a response carries.
import { assistantTurnBefore, isContinuation, isRecord, isThinkingBlock, leadingThinking, type LooseBlock, looseMessages } from "./conversation.js";
import { redactedThinkingData, signThinking } from "./signature.js";
import type { Reply, RequestBody } from "./types.js";

/** How the request asks the model to think: not at all, when it decides, or always (manual budget). */
export type ThinkingMode = "off" | "adaptive" | "enabled";

/** The thinking the server adds when manual thinking was asked for and the reply scripted none. */
const AUTO_THINKING = "The request asks me to think first: what is asked, and what is the shortest correct answer?";


/** The thinking mode of a (validated) request; anything but adaptive or enabled is off. */
export function thinkingMode(body: RequestBody): ThinkingMode {
  const thinking: unknown = body.thinking;
  if (!isRecord(thinking)) return "off";
  return thinking.type === "enabled" || thinking.type === "adaptive" ? thinking.type : "off";
}

/** The unsigned thinking and redacted_thinking blocks a reply scripts, in order; `fill` fills placeholders. */
export function scriptedThinking(r: Reply, fill: (text: string) => string): LooseBlock[] {
  const texts = r.thinking === undefined ? [] : [r.thinking].flat();
  const redacted = Array.from({ length: r.redactedThinking ?? 0 }, () => ({ type: "redacted_thinking" }));
  return [...texts.map((text) => ({ type: "thinking", thinking: fill(text) })), ...redacted];
}

function sign(block: LooseBlock, omitted: boolean): LooseBlock {
  if (block.type === "redacted_thinking") return { type: "redacted_thinking", data: redactedThinkingData() };
  const thinking = omitted ? "" : String(block.thinking ?? "");
  return { type: "thinking", thinking, signature: signThinking(thinking) };
}

/**
 * The content as the model sends it for `body`: thinking blocks dropped when the
 * request does not think; under manual thinking one added first when there are none
 * (not when continuing a paused message, whose turn already began); every thinking
 * block signed (text emptied under `display: "omitted"`), every redacted one given fresh data.
 */
export function applyThinking(content: readonly unknown[], body: RequestBody): unknown[] {
  const mode = thinkingMode(body);
  const thought = (b: unknown): b is LooseBlock => isRecord(b) && isThinkingBlock(b);
  const blocks = mode === "off" ? content.filter((b) => !thought(b)) : [...content];
  if (mode === "enabled" && !isContinuation(body) && !blocks.some(thought)) blocks.unshift({ type: "thinking", thinking: AUTO_THINKING });
  const omitted = isRecord(body.thinking) && body.thinking.display === "omitted";
  return blocks.map((b) => (thought(b) ? sign(b, omitted) : b));
}

/**
 * The thinking a later request must send back first in the assistant turn that holds
 * this response's tool calls: the response's leading thinking, or, for a
 * continuation, the thinking the continued assistant turn began with.
 */
export function turnOpeningThinking(body: RequestBody, content: readonly unknown[]): LooseBlock[] {
  if (isContinuation(body)) {
    const messages = looseMessages(body);
    return leadingThinking(assistantTurnBefore(messages, messages.length)?.blocks ?? []);
  }
  return leadingThinking(content.filter(isRecord));
}
