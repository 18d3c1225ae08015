// The model settings a person writes (SOUL.md, flags, options): thinking, effort, tool choice; parsed and checked before any request.
import { EFFORTS, type Effort, type ThinkingSetting, type ToolChoiceSetting } from "../types.js";

/** The smallest thinking budget the API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/** A setting as written, or the reason it cannot be used (a phrase to follow a field name). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** `adaptive`, `off` (or `false`), or a whole number of tokens of at least 1,024, as text or a number. */
export function parseThinking(raw: unknown): Parsed<ThinkingSetting> {
  if (raw === false) return { ok: true, value: "off" };
  const text = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw.trim().toLowerCase() : undefined;
  if (text === "adaptive" || text === "off") return { ok: true, value: text };
  const budget = text !== undefined && /^\d[\d_,]*$/.test(text) ? Number(text.replace(/[_,]/g, "")) : NaN;
  if (!Number.isSafeInteger(budget)) return { ok: false, problem: `must be "adaptive", "off" or a thinking budget in tokens (such as 8000), got ${JSON.stringify(raw)}` };
  if (budget < MIN_THINKING_BUDGET) return { ok: false, problem: `a thinking budget must be at least ${MIN_THINKING_BUDGET} tokens, got ${budget}` };
  return { ok: true, value: budget };
}

/** The most model requests a turn may be allowed: a typo of an extra zero should not become a runaway bill. */
export const MAX_ITERATIONS_CEILING = 1000;

/** A whole number of model requests per turn, 1 to MAX_ITERATIONS_CEILING, as text or a number. */
export function parseMaxIterations(raw: unknown): Parsed<number> {
  const text = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw.trim() : "";
  const value = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_ITERATIONS_CEILING) {
    return { ok: false, problem: `must be a whole number of model requests per turn from 1 to ${MAX_ITERATIONS_CEILING}, got ${JSON.stringify(raw)}` };
  }
  return { ok: true, value };
}

/** One of `low`, `medium`, `high`, `xhigh`, `max`. */
export function parseEffort(raw: unknown): Parsed<Effort> {
  const text = typeof raw === "string" ? raw.trim().toLowerCase() : undefined;
  const effort = EFFORTS.find((level) => level === text);
  if (effort) return { ok: true, value: effort };
  return { ok: false, problem: `must be one of ${EFFORTS.join(", ")}, got ${JSON.stringify(raw)}` };
}

/** `auto`, `any`, `none`, or the name of one tool (the model must call that tool first). */
export function parseToolChoice(raw: unknown): Parsed<ToolChoiceSetting> {
  const text = typeof raw === "string" ? raw.trim() : "";
  if (text === "") return { ok: false, problem: 'must be "auto", "any", "none" or a tool name' };
  return { ok: true, value: text === "auto" || text === "any" || text === "none" ? text : { tool: text } };
}

/** The first problem of a combination as `[field, problem]`: a thinking budget not below `max_tokens`, or thinking with a forced tool. */
export function checkSettings(settings: { thinking?: ThinkingSetting; maxTokens?: number; toolChoice?: ToolChoiceSetting }): [string, string] | undefined {
  const { thinking, maxTokens, toolChoice } = settings;
  if (typeof thinking === "number" && maxTokens !== undefined && thinking >= maxTokens) {
    return ["thinking", `budget ${thinking} must be below max_tokens (${maxTokens}): raise max_tokens or lower the budget`];
  }
  // A forced tool call (any, or one named tool): the API refuses it with manual thinking, and newer models with any thinking.
  if (thinking !== undefined && thinking !== "off" && (toolChoice === "any" || typeof toolChoice === "object")) {
    return ["tool_choice", `forces a tool call, which the API refuses while thinking is on: set tool_choice to auto or thinking to off`];
  }
  return undefined;
}
