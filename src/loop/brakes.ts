// The brakes of a turn as small pure pieces: repeated identical calls and the budget.
import type { ToolUseBlock, Usage } from "../types.js";

/** Identical consecutive calls allowed to run; the next one is answered with an error, the one after ends the turn. */
export const REPEAT_LIMIT = 2;

/**
 * Tracks consecutive identical calls (same tool, same input) across a turn. The third
 * in a row gets an is_error result telling the model to change approach; a fourth
 * ends the turn with `repeated_tool_call`.
 */
export class RepeatBreaker {
  private last = "";
  private count = 0;
  /** Set once a call came after the warning; the loop then stops. */
  tripped = false;

  /** Registers a call and returns the refusal text when it must not run. */
  check(call: ToolUseBlock): string | undefined {
    const signature = `${call.name}\u0000${stableJson(call.input)}`;
    this.count = signature === this.last ? this.count + 1 : 1;
    this.last = signature;
    if (this.count <= REPEAT_LIMIT) return undefined;
    if (this.count === REPEAT_LIMIT + 1) {
      return `You have called ${call.name} with the same input ${this.count} times in a row and got the same kind of result. Do not call it again with this input: change your approach or answer with what you have.`;
    }
    this.tripped = true;
    return `Stopped: ${call.name} was called with the same input ${this.count} times in a row. The turn has ended.`;
  }
}

/** Which budget, if any, the turn has passed. */
export function budgetExceeded(
  usage: Usage,
  costUsd: number,
  limits: { maxBudgetUsd: number; maxOutputTokens: number },
): string | undefined {
  if (costUsd > limits.maxBudgetUsd) {
    return `the turn's estimated cost $${costUsd.toFixed(4)} passed its budget of $${limits.maxBudgetUsd}`;
  }
  if (usage.outputTokens > limits.maxOutputTokens) {
    return `the turn's ${usage.outputTokens} output tokens passed its budget of ${limits.maxOutputTokens}`;
  }
  return undefined;
}

/** JSON with sorted keys, so `{a,b}` and `{b,a}` are the same call. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
