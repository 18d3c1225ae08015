// Thinking in replies: whether a request lets the model think, the signed blocks a response carries, and what each response opened its turn with.
import { assistantTurnBefore, isContinuation, isRecord, isThinkingBlock, leadingThinking, looseMessages, type LooseBlock } from "./conversation.js";
import { redactedThinkingData, signThinking } from "./signature.js";
import type { Reply, RequestBody } from "./types.js";

/** The thinking a response that issued `id` opened its turn with; undefined for ids this server never issued. */
export type IssuedThinking = (id: string) => readonly LooseBlock[] | undefined;

/** The thinking the server adds when manual thinking was asked for and the reply scripted none. */
const AUTO_THINKING = "The request asks me to think first: what is asked, and what is the shortest correct answer?";

/** How a (validated) request asks the model to think: not at all, when it decides, or always (a manual budget). */
export function thinkingMode(body: RequestBody): "off" | "adaptive" | "enabled" {
  const thinking: unknown = body.thinking;
  return isRecord(thinking) && (thinking.type === "enabled" || thinking.type === "adaptive") ? thinking.type : "off";
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
 * The content as the model sends it for `body`: thinking dropped when the request does not think; under manual thinking
 * one block added first when there is none (not when continuing a paused message, whose turn already began); every
 * thinking block signed (its text emptied under `display: "omitted"`), every redacted one given fresh data.
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
 * One server's memory of the thinking each response opened its turn with, by the tool_use and server_tool_use ids it
 * issued, so a request that continues the tool loop (or a paused turn) can be checked to send it back unchanged and in
 * order, as the API requires. Grows for the life of the server; ids are random, so two servers never share one.
 */
export class IssuedLedger {
  readonly #byId = new Map<string, readonly LooseBlock[]>();

  /** Records, for each call in `content` (the response to `body`), its leading thinking, or for a continuation the continued turn's. */
  remember(body: RequestBody, content: readonly unknown[]): void {
    const messages = looseMessages(body);
    const continued = messages.at(-1)?.role === "assistant";
    const opening = leadingThinking(continued ? (assistantTurnBefore(messages, messages.length)?.blocks ?? []) : content.filter(isRecord));
    for (const block of content.filter(isRecord)) {
      if ((block.type === "tool_use" || block.type === "server_tool_use") && typeof block.id === "string") this.#byId.set(block.id, opening);
    }
  }

  /** The lookup validation takes. */
  readonly lookup: IssuedThinking = (id) => this.#byId.get(id);
}
