// Thinking: whether a request lets the model think, the signed blocks a response carries, what each response opened its
// turn with, and the checks on the `thinking` setting and on the thinking a tool loop or a continuation sends back.
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
 * The content as the model sends it for `body`: thinking dropped when it does not think, one block added under manual
 * thinking (unless continuing a paused turn, already begun), every block signed or given fresh data.
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
 * The thinking each response opened its turn with, by the call ids it issued, so a continuation can be checked to send it
 * back unchanged, as the API requires. Grows for the server's life; ids are random, so two servers never share one.
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

/** The smallest `budget_tokens` manual thinking accepts. */
export const MIN_THINKING_BUDGET_TOKENS = 1024;

const KEYS_OF: Record<string, string[]> = { adaptive: ["type", "display"], disabled: ["type"], enabled: ["type", "budget_tokens", "display"] };
const DOCS = "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
const MANUAL_NEEDS_THINKING = `When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ${DOCS}`;

function checkBudget(budget: unknown, maxTokens: unknown, countTokens: boolean): string | null {
  if (budget === undefined) return "thinking.enabled.budget_tokens: Field required";
  if (typeof budget !== "number" || !Number.isInteger(budget)) return "thinking.enabled.budget_tokens: Input should be a valid integer";
  if (budget < MIN_THINKING_BUDGET_TOKENS) return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET_TOKENS}`;
  if (!countTokens && typeof maxTokens === "number" && maxTokens <= budget) {
    return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${DOCS}#max-tokens-and-context-window-size`;
  }
  return null;
}

/** The first problem of the `thinking` setting (type and keys, manual budget, a forced `tool_choice`), or null. */
export function checkThinkingConfig(body: Record<string, unknown>, countTokens: boolean): string | null {
  const thinking = body.thinking;
  if (thinking === undefined) return null;
  if (!isRecord(thinking)) return "thinking: Input should be a valid dictionary or object";
  const type = String(thinking.type);
  const keys = Object.hasOwn(KEYS_OF, type) ? KEYS_OF[type] : undefined;
  if (!keys) return `thinking: Input tag '${type}' found using 'type' does not match any of the expected tags: 'adaptive', 'disabled', 'enabled'`;
  const extra = Object.keys(thinking).find((key) => !keys.includes(key));
  if (extra !== undefined) return `thinking.${type}.${extra}: Extra inputs are not permitted`;
  if (thinking.display != null && thinking.display !== "summarized" && thinking.display !== "omitted") return `thinking.${type}.display: Input should be 'summarized' or 'omitted'`;
  if (type === "disabled") return null;
  const budget = type === "enabled" ? checkBudget(thinking.budget_tokens, body.max_tokens, countTokens) : null;
  if (budget) return budget;
  const choice = body.tool_choice;
  return isRecord(choice) && (choice.type === "any" || choice.type === "tool") ? "Thinking may not be enabled when tool_choice forces tool use." : null;
}

function sameBlock(a: LooseBlock | undefined, b: LooseBlock | undefined): boolean {
  if (!a || !b || a.type !== b.type) return false;
  return a.type === "thinking" ? a.thinking === b.thinking && a.signature === b.signature : a.data === b.data;
}

/** Compares the thinking a turn opens with to the thinking the server sent; the first difference as a 400, or null. */
function compareOpening(blocks: readonly LooseBlock[], expected: readonly LooseBlock[], start: number): string | null {
  const sent = leadingThinking(blocks);
  for (let k = 0; k < Math.max(sent.length, expected.length); k++) {
    if (sameBlock(sent[k], expected[k])) continue;
    const path = `messages.${start}.content.${k}`;
    const want = expected[k];
    if (sent[k] === undefined && want !== undefined) {
      return `${path}.type: Expected \`${String(want.type)}\`, but found \`${String(blocks[k]?.type)}\`. The thinking blocks of the response that issued these tool calls must come first in this \`assistant\` message, unchanged and in order.`;
    }
    return `${path}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.`;
  }
  return null;
}

/** The thinking issued with the first call among `blocks` (of `types`) that this server knows. */
function firstIssued(blocks: readonly LooseBlock[], types: readonly string[], issued: IssuedThinking | undefined): readonly LooseBlock[] | undefined {
  for (const block of blocks) {
    const opening = types.includes(String(block.type)) && typeof block.id === "string" ? issued?.(block.id) : undefined;
    if (opening) return opening;
  }
  return undefined;
}

/**
 * With thinking on, a continued tool loop or paused turn must open with exactly the thinking this server sent with its
 * calls; under manual thinking, with thinking at all. Runs on messages that passed `validateMessages`.
 */
export function checkThinkingPlacement(body: Record<string, unknown>, issued: IssuedThinking | undefined): string | null {
  const mode = thinkingMode(body);
  if (mode === "off") return null;
  const messages = looseMessages(body);
  const last = messages.at(-1);
  if (last?.role === "assistant") {
    const turn = assistantTurnBefore(messages, messages.length);
    const expected = turn && firstIssued(turn.blocks, ["server_tool_use", "tool_use"], issued);
    return turn && expected ? compareOpening(turn.blocks, expected, turn.start) : null;
  }
  const turn = last?.blocks[0]?.type === "tool_result" ? assistantTurnBefore(messages, messages.length - 1) : null;
  if (!turn) return null;
  const first = turn.blocks[0];
  if (mode === "enabled" && first && !isThinkingBlock(first)) {
    return `messages.${turn.start}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.type)}\`. ${MANUAL_NEEDS_THINKING}`;
  }
  const expected = firstIssued(turn.blocks, ["tool_use"], issued);
  return expected ? compareOpening(turn.blocks, expected, turn.start) : null;
}
