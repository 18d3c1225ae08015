// Knowing the size of the context: token estimates, the next request's size, and each model's window.
import type { Usage } from "../types.js";

/** About this many characters of JSON text make one token. */
export const CHARS_PER_TOKEN = 4;
/** What one image costs in tokens at most (about 1.15 megapixels / 750), instead of its base64 length. */
export const IMAGE_TOKENS = 1_600;
/** What one PDF page costs in tokens at most (its text and its image), and the bytes a page is taken to hold where none is found. */
const PDF_PAGE_TOKENS = 3_000;
const PDF_BYTES_PER_PAGE = 100_000;
/** Every current Claude model's window (1M for some Sonnet models only behind a beta header, which miniclaw does not send). */
const CONTEXT_WINDOW = 200_000;
/** Older models with half that window, by model id prefix. */
const SMALL_WINDOW_PREFIXES = ["claude-2.0", "claude-instant"];

/** The context window of `model` in tokens (200,000 unless it is a known older model). */
export function contextWindowFor(model: string): number {
  return SMALL_WINDOW_PREFIXES.some((prefix) => model.startsWith(prefix)) ? CONTEXT_WINDOW / 2 : CONTEXT_WINDOW;
}

/** Roughly the tokens of a JSON-able value: its JSON characters / CHARS_PER_TOKEN, an image IMAGE_TOKENS. Exact counts come from usage. */
export function estimateTokens(value: unknown): number {
  return Math.ceil(countChars(value) / CHARS_PER_TOKEN);
}

/** The next request's tokens: the last usage (all input and output) plus `messagesSince` estimated, else all estimated with `systemAndTools`. */
export function contextSize(input: { lastUsage?: Usage | undefined; messagesSince: unknown[]; systemAndTools?: unknown }): number {
  const added = input.messagesSince.reduce<number>((sum, message) => sum + estimateTokens(message), 0);
  if (input.lastUsage === undefined) return added + (input.systemAndTools === undefined ? 0 : estimateTokens(input.systemAndTools));
  const { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens } = input.lastUsage;
  return inputTokens + cacheReadTokens + cacheWriteTokens + outputTokens + added;
}

/** The size of the next request of a loaded session (see `contextSize`), from its `lastUsage` and the messages after it. */
export function sessionContextSize(session: { messages: unknown[]; lastUsage?: { usage: Usage; index: number } | undefined }, systemAndTools?: unknown): number {
  const last = session.lastUsage;
  return contextSize({ lastUsage: last?.usage, messagesSince: last === undefined ? session.messages : session.messages.slice(last.index + 1), systemAndTools });
}

function countChars(value: unknown): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number" || typeof value === "boolean") return String(value).length;
  if (value === null || value === undefined) return 4;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countChars(item) + 1, 2);
  if (typeof value !== "object") return 0;
  const record = value as Record<string, unknown>;
  if (record["type"] === "image") return IMAGE_TOKENS * CHARS_PER_TOKEN;
  if (record["type"] === "document" && typeof (record["source"] as { data?: unknown } | undefined)?.data === "string") return pdfPages((record["source"] as { data: string }).data) * PDF_PAGE_TOKENS * CHARS_PER_TOKEN;
  let sum = 2;
  for (const key in record) sum += key.length + 4 + countChars(record[key]);
  return sum;
}

/** A base64 PDF's pages: its page objects counted, or (pages packed in compressed object streams) one per PDF_BYTES_PER_PAGE. */
function pdfPages(base64: string): number {
  const bytes = Buffer.from(base64, "base64").toString("latin1");
  return Math.max(bytes.match(/\/Type\s*\/Page(?!s)/g)?.length ?? 0, Math.ceil(bytes.length / PDF_BYTES_PER_PAGE));
}
