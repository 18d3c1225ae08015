// The one definition of a valid history: repairs applied where messages enter it (a file loaded, a response arriving).
import type { ContentBlockParam, MessageParam, ToolResultBlockParam, ToolUseBlock } from "../types.js";
import { type MessageRecord, isObject } from "./records.js";
import type { LoadMode } from "./session-handle.js";
import { toolResultText } from "../content.js";

/** The error result answering a tool_use whose result never reached the file. */
export const INTERRUPTED_TOOL_TEXT = "The session was interrupted before this tool finished; its result is unknown. Check the current state before retrying it.";
/** The synthetic assistant reply to a user message that was never answered. */
export const NO_REPLY_TEXT = "(no reply: the previous turn was interrupted)";
// Stand-ins for lost messages, and the user turn after an assistant message sent back to go on (pause_turn).
const LOST_START_TEXT = "(the start of this conversation could not be read)";
const LOST_MESSAGE_TEXT = "(a message of this conversation could not be read)";
const CONTINUE_TEXT = "(continue)";

/** Stops after which the loop continues with a second assistant message of its own. */
const CONTINUED_STOPS = new Set(["pause_turn", "model_context_window_exceeded"]);

/**
 * Keeps a sequence valid for the API as records are added: a user message first (unless after a summary), roles alternating, each tool_use answered
 * next (else `is_error`), orphan results as text, unique ids, object inputs, no blank text or empty message. Never mutates; loads and turns share it.
 */
export class HistoryRepair {
  /** One line per repair made, for the caller's warnings. */
  readonly notes: string[] = [];
  /** Every tool_use id of the sequence so far. */
  readonly toolUseIds = new Set<string>();
  private last: MessageRecord | undefined;
  private pending: string[] = [];

  constructor(private readonly afterSummary: boolean) {}

  /** Adds one record; resolves to what the sequence gains: synthetic fillers, then the record (its content cleaned). */
  add(source: MessageRecord): MessageRecord[] {
    const record = this.clean(source);
    if (record.message.content.length === 0) {
      this.notes.push(`dropped an empty ${record.message.role} message (${record.id})`);
      return [];
    }
    const out: MessageRecord[] = [];
    const last = this.last;
    if (record.message.role === "user") {
      if (last?.message.role === "user") out.push(synthetic(`${last.id}:no-reply`, "assistant", NO_REPLY_TEXT, last.ts));
      out.push(this.answerPending(record));
      this.pending = [];
    } else {
      if (last === undefined && !this.afterSummary) out.push(synthetic(`${record.id}:lost-start`, "user", LOST_START_TEXT, record.ts));
      if (last?.message.role === "assistant") out.push(this.fillGap(last));
      out.push(record);
      const content = record.message.content;
      this.pending = typeof content === "string" ? [] : content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
    }
    this.last = record;
    return out;
  }

  /** The synthetic records that end the sequence as a load in `mode` does (see LoadMode); the store appends them when it holds the lock. */
  close(mode: LoadMode, ts: number, newId: () => string): MessageRecord[] {
    const tail: MessageRecord[] = [];
    if (mode === "in-turn") return tail;
    if (this.pending.length > 0) {
      this.notes.push(`answered ${this.pending.length} interrupted tool call(s) (${this.pending.join(", ")}) with an error result`);
      tail.push(synthetic(newId(), "user", this.pending.map(interruptedResult), ts));
    }
    const lastRole = tail.at(-1)?.message.role ?? this.last?.message.role;
    if (mode === "turn-start" && lastRole === "user") {
      this.notes.push("the last user message had no reply: added a note that the turn was interrupted");
      tail.push(synthetic(newId(), "assistant", NO_REPLY_TEXT, ts));
    }
    for (const record of tail) this.add(record);
    return tail;
  }

  /** Drops blank text and repeated tool_use ids, stores a non-object tool input as `{}`. */
  private clean(record: MessageRecord): MessageRecord {
    const content = record.message.content;
    if (typeof content === "string") return isBlank(content) && content !== "" ? { ...record, message: { role: record.message.role, content: "" } } : record;
    const cleaned = content.flatMap((block) => this.cleanBlock(block, record.id));
    if (cleaned.length === content.length && cleaned.every((b, i) => b === content[i])) return record;
    return { ...record, message: { role: record.message.role, content: cleaned } };
  }

  private cleanBlock(block: ContentBlockParam, recordId: string): ContentBlockParam[] {
    if (block.type === "text") return isBlank(block.text) ? [] : [block];
    if (isUnsigned(block)) {
      this.notes.push(`dropped a thinking block without a signature (${recordId})`);
      return [];
    }
    if (block.type === "tool_result") return [withVisibleResult(block)];
    if (block.type !== "tool_use") return [block];
    if (this.toolUseIds.has(block.id)) {
      this.notes.push(`dropped a second tool_use with id ${block.id} (${recordId})`);
      return [];
    }
    this.toolUseIds.add(block.id);
    if (isObject(block.input)) return [block];
    this.notes.push(`replaced the non-object input of tool_use ${block.id} (${recordId})`);
    return [{ ...block, input: {} }];
  }

  /** Answers the pending tool_uses in a user message: results first, missing ones synthesised, orphans turned to text. */
  private answerPending(record: MessageRecord): MessageRecord {
    const content = record.message.content;
    if (typeof content === "string" && this.pending.length === 0) return record;
    const blocks: ContentBlockParam[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
    const results = new Map<string, ToolResultBlockParam>();
    const others: ContentBlockParam[] = [];
    for (const block of blocks) {
      if (block.type === "tool_result" && this.pending.includes(block.tool_use_id) && !results.has(block.tool_use_id)) {
        results.set(block.tool_use_id, block);
      } else if (block.type === "tool_result") {
        this.notes.push(`turned the result of unknown tool call ${block.tool_use_id} into text (${record.id})`);
        others.push({ type: "text", text: `[result of an earlier tool call ${block.tool_use_id}] ${toolResultText(block.content)}` });
      } else {
        others.push(block);
      }
    }
    const missing = this.pending.filter((id) => !results.has(id));
    if (missing.length > 0) this.notes.push(`answered ${missing.length} tool call(s) with no result (${missing.join(", ")}) with an error result`);
    const answered = [...this.pending.map((id) => results.get(id) ?? interruptedResult(id)), ...others];
    if (answered.length === blocks.length && answered.every((block, i) => block === blocks[i])) return record;
    return { ...record, message: { role: "user", content: answered } };
  }

  /** The synthetic user message between two assistant messages. */
  private fillGap(previous: MessageRecord): MessageRecord {
    const pending = this.pending;
    if (pending.length === 0 && CONTINUED_STOPS.has(previous.stopReason ?? "")) {
      // The loop sent the conversation back for the model to go on (pause_turn): not damage, no warning.
      return synthetic(`${previous.id}:continue`, "user", CONTINUE_TEXT, previous.ts);
    }
    if (pending.length === 0) {
      this.notes.push(`a user message was missing after ${previous.id}: added a placeholder`);
      return synthetic(`${previous.id}:lost`, "user", LOST_MESSAGE_TEXT, previous.ts);
    }
    this.notes.push(`answered ${pending.length} tool call(s) with no result (${pending.join(", ")}) with an error result`);
    return synthetic(`${previous.id}:results`, "user", pending.map(interruptedResult), previous.ts);
  }
}

/** Repairs a loaded sequence (see HistoryRepair): the `records` to send, and the synthetic `tail` among them the store appends. Pure. */
export function repairMessages(
  input: readonly MessageRecord[],
  options: { afterSummary: boolean; tail: LoadMode; ts: number; newId: () => string },
): { records: MessageRecord[]; tail: MessageRecord[]; notes: string[]; repair: HistoryRepair } {
  const repair = new HistoryRepair(options.afterSummary);
  const records = input.flatMap((record) => repair.add(record));
  const tail = repair.close(options.tail, options.ts, options.newId);
  return { records: [...records, ...tail], tail, notes: repair.notes, repair };
}

/** A thinking block cut off before its signature (a stream ended by max_tokens): the API refuses it back, so it is not kept. */
function isUnsigned(block: ContentBlockParam): boolean {
  return block.type === "thinking" && (typeof block.signature !== "string" || block.signature === "");
}

/** Content safe to store: no blank text, unsigned thinking or (`dropToolUse`) tool_use; ids unique against `seen`, inputs objects; `calls` keep the inputs as sent. */
export function cleanResponse(content: readonly ContentBlockParam[], seen: ReadonlySet<string>, dropToolUse: boolean): { content: ContentBlockParam[]; calls: ToolUseBlock[] } {
  const used = new Set(seen);
  const calls: ToolUseBlock[] = [];
  const stored = content.flatMap((block): ContentBlockParam[] => {
    if (block.type === "text") return isBlank(block.text) ? [] : [block];
    if (isUnsigned(block)) return [];
    if (block.type !== "tool_use") return [block];
    if (dropToolUse) return [];
    let id = block.id;
    for (let n = 2; used.has(id); n++) id = `${block.id}_${n}`;
    used.add(id);
    calls.push({ ...(block as ToolUseBlock), id });
    return [{ ...block, id, input: isObject(block.input) ? block.input : {} }];
  });
  return { content: stored, calls };
}

/** True when a user message is plain text from the user (no tool_result in it). */
export function isPlainUserMessage(message: MessageParam): boolean {
  if (message.role !== "user") return false;
  return typeof message.content === "string" || message.content.every((block) => block.type !== "tool_result");
}

/** The API rejects a tool_result whose text is empty: it says "(no output)" instead. */
function withVisibleResult(block: ToolResultBlockParam): ToolResultBlockParam {
  if (typeof block.content === "string") return isBlank(block.content) ? { ...block, content: "(no output)" } : block;
  if (!Array.isArray(block.content) || !block.content.some((c) => c.type === "text" && isBlank(c.text))) return block;
  const inner = block.content.filter((c) => c.type !== "text" || !isBlank(c.text));
  return { ...block, content: inner.length > 0 ? inner : [{ type: "text", text: "(no output)" }] };
}

function interruptedResult(id: string): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: id, is_error: true, content: INTERRUPTED_TOOL_TEXT };
}

function synthetic(id: string, role: "user" | "assistant", content: string | ContentBlockParam[], ts: number): MessageRecord {
  return { type: "message", id, ts, message: { role, content: typeof content === "string" ? [{ type: "text", text: content }] : content }, synthetic: true };
}

function isBlank(text: string): boolean {
  return text.trim() === "";
}
