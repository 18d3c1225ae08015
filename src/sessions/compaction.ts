// Compaction: where to cut (pure), the summary prompt and record, trimming old results; and the context's size (estimates, the next request, windows).
import { cutMiddle, isServerResult, serverCallText, serverResultText, toolResultText } from "../content.js";
import type { ContentBlockParam, MessageParam, ToolResultBlockParam, Usage } from "../types.js";
import { newRecordId, type CompactionRecord, type MessageRecord } from "./records.js";
import { isPlainUserMessage } from "./repair.js";

/** By default, the share of the context window kept verbatim after a compaction, and the share past which it triggers. */
export const KEEP_SHARE_OF_WINDOW = 0.25;
export const COMPACT_AT_SHARE_OF_WINDOW = 0.8;

/** Where to cut: the records before `cutIndex` are summarized, the rest (from `firstKeptId`, a plain user message in the file) kept; estimated tokens of each. */
export interface CompactionPlan {
  cutIndex: number;
  firstKeptId: string;
  toSummarize: MessageRecord[];
  kept: MessageRecord[];
  summarizedTokens: number;
  keptTokens: number;
}

/**
 * The kept tail holds about `keepTokens` and starts at a plain, non-synthetic user message, so no tool_use loses its result
 * and it can carry the summary. Null when no such cut exists after the first record (one long turn of tool calls). Pure.
 */
export function planCompaction(records: MessageRecord[], options: { keepTokens: number }): CompactionPlan | null {
  const tokens = records.map((record) => estimateTokens(record.message));
  let budgetIndex = records.length;
  for (let i = records.length - 1, tail = 0; i >= 0; i--) {
    tail += tokens[i] ?? 0;
    budgetIndex = i;
    if (tail >= options.keepTokens) break;
  }
  const isCut = (i: number): boolean => records[i] !== undefined && records[i].synthetic !== true && isPlainUserMessage(records[i].message);
  // From budgetIndex on the tail holds keepTokens (one huge message may hold far more): cut after it, else at or before.
  let cutIndex = -1;
  for (let i = Math.max(1, budgetIndex + 1); i < records.length && cutIndex < 0; i++) if (isCut(i)) cutIndex = i;
  for (let i = Math.min(budgetIndex, records.length - 1); i >= 1 && cutIndex < 0; i--) if (isCut(i)) cutIndex = i;
  const first = records[cutIndex];
  if (cutIndex < 1 || first === undefined) return null;
  const sum = (from: number, to: number): number => tokens.slice(from, to).reduce((a, b) => a + b, 0);
  const [toSummarize, kept] = [records.slice(0, cutIndex), records.slice(cutIndex)];
  return { cutIndex, firstKeptId: first.id, toSummarize, kept, summarizedTokens: sum(0, cutIndex), keptTokens: sum(cutIndex, records.length) };
}

/** The compaction record for `plan` and its `summary`; `tokensBefore` is the size that triggered it, `skills` those loaded before the cut. */
export function compactionRecordFor(plan: CompactionPlan, summary: string, meta: { ts: number; tokensBefore: number; skills?: string[] }): CompactionRecord {
  const replacedMessages = plan.toSummarize.filter((record) => record.synthetic !== true).length;
  const skills = meta.skills !== undefined && meta.skills.length > 0 && { skills: meta.skills };
  return { type: "compaction", id: newRecordId(), ts: meta.ts, summary, firstKeptId: plan.firstKeptId, replacedMessages, tokensBefore: meta.tokensBefore, ...skills };
}

// The longest tool result, tool input and text block quoted in the transcript, in characters (a huge message is summarised from its head and tail).
const SUMMARY_TOOL_RESULT_CHARS = 400;
const SUMMARY_TOOL_INPUT_CHARS = 300;
const SUMMARY_TEXT_CHARS = 40_000;

/** A system prompt for the summary request (stable text, so it caches). */
export const SUMMARY_SYSTEM_PROMPT =
  "You summarise an assistant's working session so that the assistant can continue it without the original messages. " +
  "Be specific and complete: exact file paths, commands, names, numbers and error messages matter more than prose.";

const SECTIONS = [
  "Goal: what the user wants overall, in their terms.",
  "Constraints: requirements, limits and instructions the user gave.",
  "Progress: what has been done so far, in order.",
  "Decisions: choices made and why.",
  "Facts learned: what was found out about the code, system or world.",
  "Open tasks: what is left to do, and the next step.",
  "Files: every file read, and every file created or changed (with what changed).",
  "Tool failures: commands or tools that failed, with the error, and whether it was resolved.",
  "User preferences: style, tone and working preferences the user showed.",
  "Skills: skills that were loaded (by name), so they can be loaded again.",
];

/** The text asking the model to summarise `toSummarize` (tool inputs and results cut short), updating `previousSummary` if any. Pure. */
export function buildSummaryRequestText(toSummarize: MessageRecord[], previousSummary?: string): string {
  const transcript = toSummarize.map((record) => renderMessage(record.message)).join("\n\n");
  const sections = SECTIONS.map((line) => `## ${line}`).join("\n");
  const intro =
    previousSummary === undefined
      ? "Summarise the conversation below."
      : "The conversation below continues an earlier one whose summary follows. Update that summary with the new messages: keep everything in it that still holds, change what changed, add what is new.\n\n<previous-summary>\n" +
        previousSummary +
        "\n</previous-summary>";
  return [
    intro,
    `<conversation>\n${transcript}\n</conversation>`,
    `Write the summary in Markdown with exactly these sections (write "none" for an empty one):\n${sections}`,
    "Reply with the summary only.",
  ].join("\n\n");
}

/** Splits the records to summarise into consecutive groups of at most `maxChars` of transcript (one record always fits), summarised in turn. Pure. */
export function splitForSummary(records: MessageRecord[], maxChars: number): MessageRecord[][] {
  const groups: MessageRecord[][] = [];
  let size = 0;
  for (const record of records) {
    const chars = renderMessage(record.message).length + 2;
    if (groups.length === 0 || size + chars > maxChars) {
      groups.push([]);
      size = 0;
    }
    groups.at(-1)!.push(record);
    size += chars;
  }
  return groups;
}

function renderMessage(message: MessageParam): string {
  const who = message.role === "user" ? "User" : "Assistant";
  if (typeof message.content === "string") return `[${who}]\n${cutText(message.content)}`;
  return message.content.map((block) => renderBlock(who, block)).filter((line) => line !== "").join("\n");
}

function renderBlock(who: string, block: ContentBlockParam): string {
  switch (block.type) {
    case "text":
      return `[${who}]\n${cutText(block.text)}`;
    case "tool_use":
      return `[Tool call ${block.name} ${block.id}] ${cut(JSON.stringify(block.input), SUMMARY_TOOL_INPUT_CHARS)}`;
    case "tool_result": {
      const status = block.is_error === true ? " (error)" : "";
      return `[Tool result ${block.tool_use_id}${status}] ${cut(toolResultText(block.content), SUMMARY_TOOL_RESULT_CHARS)}`;
    }
    case "thinking":
    case "redacted_thinking":
      return "";
    case "server_tool_use":
      return `[Server tool call ${block.name} ${block.id}] ${cut(serverCallText(block), SUMMARY_TOOL_INPUT_CHARS)}`;
    default: {
      if (!isServerResult(block)) return `[${who} ${block.type}]`;
      // Titles and URLs, never the encrypted or full page content.
      const { isError, text } = serverResultText(block);
      const id = "tool_use_id" in block ? ` ${String(block.tool_use_id)}` : "";
      return `[Server tool result${id}${isError ? " (error)" : ""}] ${cut(text, SUMMARY_TOOL_RESULT_CHARS * 2)}`;
    }
  }
}

function cutText(text: string): string {
  return cutMiddle(text, SUMMARY_TEXT_CHARS, (more) => `\n… [${more} characters of this message left out] …\n`, 0.5);
}

function cut(text: string, max: number): string {
  return cutMiddle(text, max, (more) => `… [${more} more characters]`, 1);
}

/** Every tool result but the `keepRecent` newest cut to `maxChars` of text (images kept, unchanged messages the same objects); breaks the cache: only when tight. */
export function trimOldToolResults(messages: MessageParam[], options: { keepRecent: number; maxChars: number }): MessageParam[] {
  let toKeep = options.keepRecent;
  // Newest first, so the `keepRecent` results kept whole are the last ones.
  const trim = (block: ContentBlockParam): ContentBlockParam => (block.type !== "tool_result" || toKeep-- > 0 ? block : trimResult(block, options.maxChars));
  return messages.toReversed().map((message) => {
    if (message.role !== "user" || typeof message.content === "string") return message;
    const content = message.content.toReversed().map(trim).reverse();
    return content.every((block, i) => block === message.content[i]) ? message : { ...message, content };
  }).reverse();
}

function trimResult(block: ToolResultBlockParam, maxChars: number): ToolResultBlockParam {
  const text = toolResultText(block.content, "skip");
  if (text.length <= maxChars) return block;
  const marker = (cut: number): string => `\n[… ${cut} characters of this old tool result trimmed from the request; the session file keeps it whole]`;
  const kept: ContentBlockParam = { type: "text", text: cutMiddle(text, maxChars, marker, 1) };
  const others = typeof block.content === "string" || block.content === undefined ? [] : block.content.filter((part) => part.type !== "text");
  return { ...block, content: [kept as { type: "text"; text: string }, ...others] };
}

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
