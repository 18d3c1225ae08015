// The summarisation prompt of a compaction: the old messages as a compact transcript plus the sections to fill.
import { cutMiddle, isServerResult, serverCallText, serverResultText, toolResultText } from "../content.js";
import type { ContentBlockParam, MessageParam } from "../types.js";
import type { MessageRecord } from "./records.js";

/** Longest tool result quoted in the transcript sent for summarising, in characters. */
export const SUMMARY_TOOL_RESULT_CHARS = 400;
/** Longest tool input quoted in the transcript, in characters. */
export const SUMMARY_TOOL_INPUT_CHARS = 300;
/** Longest text block quoted in the transcript, in characters: a huge message is summarised from its head and tail. */
export const SUMMARY_TEXT_CHARS = 40_000;

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

/**
 * The user message text asking the model to summarise `toSummarize`, tool inputs and results cut to a few hundred
 * characters each. With `previousSummary` (compacted before) the model updates it, so nothing earlier is lost. Pure.
 */
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

/**
 * Splits the records to summarise into consecutive groups whose transcript holds at most `maxChars` characters (one
 * record alone always fits: its texts are cut to SUMMARY_TEXT_CHARS), so every summary request fits the window; each
 * group then updates the summary of the ones before. Pure.
 */
export function splitForSummary(records: MessageRecord[], maxChars: number): MessageRecord[][] {
  const groups: MessageRecord[][] = [];
  let group: MessageRecord[] = [];
  let size = 0;
  for (const record of records) {
    const chars = renderMessage(record.message).length + 2;
    if (group.length > 0 && size + chars > maxChars) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(record);
    size += chars;
  }
  if (group.length > 0) groups.push(group);
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
