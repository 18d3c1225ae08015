// Knowing the size of the context: token estimates, the next request's size, and each model's window.
import type { Usage } from "../types.js";

/** About this many characters of JSON text make one token. */
export const CHARS_PER_TOKEN = 4;
/** What one image costs in tokens at most (about 1.15 megapixels / 750), instead of its base64 length. */
export const IMAGE_TOKENS = 1_600;
/** The window of a model missing from CONTEXT_WINDOWS. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/**
 * Context windows in tokens by model id prefix; the longest matching prefix wins.
 * Every current Claude model has 200k by default (1M for some Sonnet models only
 * behind a beta header, which miniclaw does not send).
 */
export const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "claude-opus-4": 200_000,
  "claude-sonnet-4": 200_000,
  "claude-haiku-4": 200_000,
  "claude-3-7-sonnet": 200_000,
  "claude-3-5-sonnet": 200_000,
  "claude-3-5-haiku": 200_000,
  "claude-3-opus": 200_000,
  "claude-3-sonnet": 200_000,
  "claude-3-haiku": 200_000,
  "claude-2.1": 200_000,
  "claude-2.0": 100_000,
  "claude-instant": 100_000,
};

/** The context window of `model`, from CONTEXT_WINDOWS (DEFAULT_CONTEXT_WINDOW when unknown). */
export function contextWindowFor(model: string): number {
  let best: string | undefined;
  for (const prefix of Object.keys(CONTEXT_WINDOWS)) {
    if (model.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? DEFAULT_CONTEXT_WINDOW : (CONTEXT_WINDOWS[best] ?? DEFAULT_CONTEXT_WINDOW);
}

/**
 * Estimates the tokens of any JSON-able value: its characters (strings, keys and
 * punctuation as JSON would write them) divided by CHARS_PER_TOKEN, rounded up.
 * A base64 image counts IMAGE_TOKENS. Deliberately rough; exact counts come from usage.
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil(countChars(value) / CHARS_PER_TOKEN);
}

/** What `contextSize` needs. */
export interface ContextSizeInput {
  /** Usage of the previous response of this session (after its last compaction), if any. */
  lastUsage?: Usage | undefined;
  /** Messages added after that response (all messages when there is none). */
  messagesSince: unknown[];
  /** System prompt and tool definitions: counted only when there is no usage yet. */
  systemAndTools?: unknown;
}

/**
 * The size in tokens of the next request: the previous response's exact usage
 * (input + cache read + cache write + output: everything already sent plus the
 * reply, which is now part of the history) and an estimate of what was added
 * since. Without usage (first request, or just after a compaction) everything is
 * estimated, system prompt and tool definitions included.
 */
export function contextSize(input: ContextSizeInput): number {
  const added = input.messagesSince.reduce<number>((sum, message) => sum + estimateTokens(message), 0);
  if (input.lastUsage === undefined) return added + (input.systemAndTools === undefined ? 0 : estimateTokens(input.systemAndTools));
  const { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens } = input.lastUsage;
  return inputTokens + cacheReadTokens + cacheWriteTokens + outputTokens + added;
}

/**
 * The size of the next request of a loaded session (see `contextSize`), from its
 * `lastUsage` and the messages after it. `systemAndTools` is what the request adds
 * besides the messages (counted only when the session has no usage yet).
 */
export function sessionContextSize(
  session: { messages: unknown[]; lastUsage?: { usage: Usage; index: number } | undefined },
  systemAndTools?: unknown,
): number {
  const last = session.lastUsage;
  return contextSize({
    lastUsage: last?.usage,
    messagesSince: last === undefined ? session.messages : session.messages.slice(last.index + 1),
    systemAndTools,
  });
}

function countChars(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number" || typeof value === "boolean") return String(value).length;
  if (value === null || value === undefined) return 4;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countChars(item) + 1, 2);
  if (typeof value !== "object") return 0;
  const record = value as Record<string, unknown>;
  if (record["type"] === "image") return IMAGE_TOKENS * CHARS_PER_TOKEN;
  let sum = 2;
  for (const key in record) sum += key.length + 4 + countChars(record[key]);
  return sum;
}
