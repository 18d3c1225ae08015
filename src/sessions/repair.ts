// Repair of a loaded message sequence so the next request is valid, whatever a crash left in the file.
import type { ContentBlockParam, MessageParam, ToolResultBlockParam } from "../types.js";
import type { MessageRecord } from "./records.js";
import { toolResultText } from "./summary-prompt.js";

/** Text of the error result that answers a tool_use whose result never reached the file. */
export const INTERRUPTED_TOOL_TEXT =
  "The session was interrupted before this tool finished; its result is unknown. Check the current state before retrying it.";
/** Text of the synthetic assistant reply to a user message that was never answered. */
export const NO_REPLY_TEXT = "(no reply: the previous turn was interrupted)";
/** Text standing in for messages lost from the start of the sequence (corrupt lines). */
export const LOST_START_TEXT = "(the start of this conversation could not be read)";
/** Text standing in for a user message lost between two assistant messages. */
export const LOST_MESSAGE_TEXT = "(a message of this conversation could not be read)";

/** What `repairMessages` returns. */
export interface RepairResult {
  /** The sequence to send: file records, possibly with fixed content, plus synthetic ones. */
  records: MessageRecord[];
  /** The synthetic records at the very end; the store appends them when it holds the lock. */
  tail: MessageRecord[];
  /** One line per repair, for the caller's warnings. */
  notes: string[];
}

/** Options of `repairMessages`. */
export interface RepairOptions {
  /** A summary message will precede the sequence, so it may start with an assistant message. */
  afterSummary: boolean;
  /**
   * What to do at the end: "close" answers a trailing tool_use with error results
   * and a trailing user message with a synthetic assistant note (between turns);
   * "answer" only answers the tool_use (a read-only view); "none" leaves the end as
   * written (a turn under way: its tool calls are running, its request in flight).
   */
  tail: "close" | "answer" | "none";
  /** Timestamp and id source for the synthetic tail records. */
  ts: number;
  newId: () => string;
}

/**
 * Makes a message sequence valid for the API: it starts with a user message
 * (unless `afterSummary`), roles alternate, every tool_use is answered first
 * thing in the next message (missing results become `is_error` results), no
 * tool_result lacks its tool_use (orphans become text), empty messages are
 * dropped. The end is treated as `tail` says. Repairs in the middle exist only
 * in memory (the file is append-only) and are recomputed identically on every
 * load; repairs at the end are returned in `tail` for the store to persist.
 * Pure: the input is not mutated.
 */
export function repairMessages(input: MessageRecord[], options: RepairOptions): RepairResult {
  const out: MessageRecord[] = [];
  const notes: string[] = [];
  let pending: string[] = [];
  for (const source of input) {
    const record = withoutEmptyText(source);
    if (isEmpty(record.message.content)) {
      notes.push(`dropped an empty ${record.message.role} message (${record.id})`);
      continue;
    }
    const last = out.at(-1);
    if (record.message.role === "user") {
      if (last?.message.role === "user") out.push(synthetic(`${last.id}:no-reply`, "assistant", NO_REPLY_TEXT, last.ts));
      out.push(answerToolUses(record, pending, notes));
      pending = [];
      continue;
    }
    if (last === undefined && !options.afterSummary) out.push(synthetic(`${record.id}:lost-start`, "user", LOST_START_TEXT, record.ts));
    if (last?.message.role === "assistant") out.push(fillGap(last, pending, notes));
    out.push(record);
    pending = toolUseIds(record.message);
  }
  const tail: MessageRecord[] = [];
  if (options.tail === "none") return { records: out, tail, notes };
  if (pending.length > 0) {
    notes.push(`answered ${pending.length} interrupted tool call(s) (${pending.join(", ")}) with an error result`);
    tail.push(syntheticWith(options.newId(), "user", pending.map(interruptedResult), options.ts));
  }
  if (options.tail === "close" && (tail.at(-1) ?? out.at(-1))?.message.role === "user") {
    notes.push("the last user message had no reply: added a note that the turn was interrupted");
    tail.push(synthetic(options.newId(), "assistant", NO_REPLY_TEXT, options.ts));
  }
  return { records: [...out, ...tail], tail, notes };
}

/** The ids of the tool_use blocks of an assistant message, in order. */
export function toolUseIds(message: MessageParam): string[] {
  if (message.role !== "assistant" || typeof message.content === "string") return [];
  return message.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
}

/** True when a user message is plain text from the user (no tool_result in it). */
export function isPlainUserMessage(message: MessageParam): boolean {
  if (message.role !== "user") return false;
  return typeof message.content === "string" || message.content.every((block) => block.type !== "tool_result");
}

/** Answers the pending tool_uses in a user message: results first, missing ones synthesised, orphans turned to text. */
function answerToolUses(record: MessageRecord, pending: string[], notes: string[]): MessageRecord {
  const blocks: ContentBlockParam[] =
    typeof record.message.content === "string" ? [{ type: "text", text: record.message.content }] : record.message.content;
  const results = new Map<string, ToolResultBlockParam>();
  const others: ContentBlockParam[] = [];
  for (const block of blocks) {
    if (block.type === "tool_result" && pending.includes(block.tool_use_id) && !results.has(block.tool_use_id)) {
      results.set(block.tool_use_id, block);
    } else if (block.type === "tool_result") {
      notes.push(`turned the result of unknown tool call ${block.tool_use_id} into text (${record.id})`);
      others.push({ type: "text", text: `[result of an earlier tool call ${block.tool_use_id}] ${toolResultText(block.content)}` });
    } else {
      others.push(block);
    }
  }
  const missing = pending.filter((id) => !results.has(id));
  if (missing.length > 0) notes.push(`answered ${missing.length} tool call(s) with no result (${missing.join(", ")}) with an error result`);
  const ordered = pending.map((id) => results.get(id) ?? interruptedResult(id));
  const content = [...ordered, ...others];
  if (content.length === blocks.length && content.every((block, i) => block === blocks[i])) return record;
  return { ...record, message: { role: "user", content } };
}

/** Stops after which the loop continues with a second assistant message of its own. */
const CONTINUED_STOPS = new Set(["pause_turn", "model_context_window_exceeded"]);
/** Stands between an assistant message the loop sent back and the model's continuation. */
export const CONTINUE_TEXT = "(continue)";

/** The synthetic user message between two assistant messages. */
function fillGap(previous: MessageRecord, pending: string[], notes: string[]): MessageRecord {
  if (pending.length === 0 && CONTINUED_STOPS.has(previous.stopReason ?? "")) {
    // The loop sent the conversation back for the model to go on (pause_turn): not damage, no warning.
    return synthetic(`${previous.id}:continue`, "user", CONTINUE_TEXT, previous.ts);
  }
  if (pending.length === 0) {
    notes.push(`a user message was missing after ${previous.id}: added a placeholder`);
    return synthetic(`${previous.id}:lost`, "user", LOST_MESSAGE_TEXT, previous.ts);
  }
  notes.push(`answered ${pending.length} tool call(s) with no result (${pending.join(", ")}) with an error result`);
  return syntheticWith(`${previous.id}:results`, "user", pending.map(interruptedResult), previous.ts);
}

function interruptedResult(id: string): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: id, is_error: true, content: INTERRUPTED_TOOL_TEXT };
}

function synthetic(id: string, role: "user" | "assistant", text: string, ts: number): MessageRecord {
  return syntheticWith(id, role, [{ type: "text", text }], ts);
}

function syntheticWith(id: string, role: "user" | "assistant", content: ContentBlockParam[], ts: number): MessageRecord {
  return { type: "message", id, ts, message: { role, content }, synthetic: true };
}


function isEmpty(content: MessageParam["content"]): boolean {
  return typeof content === "string" ? content.length === 0 : content.length === 0;
}

/** The API rejects empty text blocks; an interrupted stream can leave one. */
function withoutEmptyText(record: MessageRecord): MessageRecord {
  const content = record.message.content;
  if (typeof content === "string" || !content.some((b) => b.type === "text" && b.text === "")) return record;
  return { ...record, message: { ...record.message, content: content.filter((b) => !(b.type === "text" && b.text === "")) } };
}
