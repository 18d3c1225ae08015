// Validation of thinking: the `thinking` setting, and the thinking a tool loop or a continuation must send back unchanged.
import { assistantTurnBefore, isRecord, isThinkingBlock, leadingThinking, looseMessages, type LooseBlock } from "./conversation.js";
import { thinkingMode, type IssuedThinking } from "./thinking.js";

/** The smallest `budget_tokens` manual thinking accepts. */
export const MIN_THINKING_BUDGET_TOKENS = 1024;

const KEYS_OF: Record<string, string[]> = { adaptive: ["type", "display"], disabled: ["type"], enabled: ["type", "budget_tokens", "display"] };
const DOCS = "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking";
const MANUAL_NEEDS_THINKING = `When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. ${DOCS}`;

function checkBudget(budget: unknown, maxTokens: unknown, countTokens: boolean): string | null {
  if (budget === undefined) return "thinking.enabled.budget_tokens: Field required";
  if (typeof budget !== "number" || !Number.isInteger(budget)) return "thinking.enabled.budget_tokens: Input should be a valid integer";
  if (budget < MIN_THINKING_BUDGET_TOKENS) return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_THINKING_BUDGET_TOKENS}`;
  if (!countTokens && typeof maxTokens === "number" && maxTokens <= budget) return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${DOCS}#max-tokens-and-context-window-size`;
  return null;
}

/**
 * The first problem of the request's `thinking` setting, or null: a known type with only its own keys, manual
 * thinking's budget (at least 1024, below `max_tokens` unless `countTokens`), and no thinking while `tool_choice` forces a tool.
 */
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
 * With thinking on: when the request continues a tool loop (its last message starts with tool_results) or a paused turn
 * (its last message is the assistant's), the assistant turn there must open with exactly the thinking this server sent
 * with the calls it holds; under manual thinking a turn before tool results must open with thinking at all. Runs on
 * messages that passed `validateMessages`.
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
