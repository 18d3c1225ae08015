// The API view of a session: repaired messages, the compaction summary in front, and the last known usage.
import type { ContentBlockParam, MessageParam, PermissionModeName, Usage } from "../types.js";
import { agentIdFromKey, newRecordId, type CompactionRecord, type MessageRecord, type OutputRecord, type SessionRecord } from "./records.js";
import { isPlainUserMessage, repairMessages, type HistoryRepair, type TailMode } from "./repair.js";
import type { LoadRegion } from "./session-file.js";

/** A session as the loop needs it: the API view from the last compaction on. */
export interface LoadedSession {
  key: string;
  /** The session file (absolute when the store's folder is), and whether it exists (else the first `append` writes a header). */
  file: string;
  exists: boolean;
  agentId?: string;
  /**
   * Messages to send, valid for the API: a user message first (the summary first when compacted), roles alternating,
   * every tool_use answered in the next message. Their end depends on the load mode (see LoadMode).
   */
  messages: MessageParam[];
  /**
   * The message records behind `messages`: `messages[i + messageOffset]` is built from `records[i]`; repairs are
   * records with `synthetic: true`. A summary merged into the first kept user message stands in front of its content.
   */
  records: MessageRecord[];
  /** 1 when the summary stands as its own first message, else 0. */
  messageOffset: 0 | 1;
  compaction?: CompactionRecord;
  /** The usage of the last response written after the last compaction, and its index in `messages` (for `contextSize`). */
  lastUsage?: { usage: Usage; index: number };
  /** The structured answers (`output` option) and the last permission mode recorded in the loaded part. */
  outputs?: OutputRecord[];
  mode?: PermissionModeName;
  /** Problems met while reading and repairs made (file and line named); the caller shows them. */
  warnings: string[];
}

/** The opening and closing of the text block that carries a compaction summary. */
export const SUMMARY_PREFIX = "The conversation before this point was compacted. Summary of it:\n<summary>\n";
export const SUMMARY_SUFFIX = "\n</summary>";

/** The loaded view of a region, the synthetic tail the file needs to end validly, and the repair later records are added to. Pure. */
export function buildSessionView(
  region: Pick<LoadRegion, "header" | "compaction" | "records" | "afterCompaction" | "warnings" | "outputs" | "mode">,
  base: { key: string; file: string; ts: number; newId: () => string; tail: TailMode },
): { session: LoadedSession; tail: MessageRecord[]; repair: HistoryRepair } {
  const { compaction, header, outputs, mode } = region;
  const repaired = repairMessages(region.records, { afterSummary: compaction !== undefined, tail: base.tail, ts: base.ts, newId: base.newId });
  const records = repaired.records;
  let messages = records.map((record) => record.message);
  let messageOffset: 0 | 1 = 0;
  if (compaction) {
    const summary: ContentBlockParam = { type: "text", text: SUMMARY_PREFIX + compaction.summary + SUMMARY_SUFFIX };
    const first = messages[0];
    if (first !== undefined && isPlainUserMessage(first)) {
      messages = [{ role: "user", content: [summary, ...asBlocks(first.content)] }, ...messages.slice(1)];
    } else {
      messages = [{ role: "user", content: [summary] }, ...messages];
      messageOffset = 1;
    }
  }
  const lastUsage = findLastUsage(records, region.afterCompaction, messageOffset);
  const warnings = [...region.warnings, ...repaired.notes.map((note) => `${base.file}: ${note}`)];
  const found = { ...(compaction && { compaction }), ...(lastUsage && { lastUsage }), ...(outputs && { outputs }), ...(mode && { mode }) };
  const session: LoadedSession = { key: base.key, file: base.file, exists: true, ...(header && { agentId: header.agentId }), messages, records, messageOffset, ...found, warnings };
  return { session, tail: repaired.tail, repair: repaired.repair };
}

function findLastUsage(records: MessageRecord[], after: Set<string>, offset: 0 | 1): LoadedSession["lastUsage"] {
  const i = records.findLastIndex((record) => record.usage !== undefined && record.message.role === "assistant" && after.has(record.id));
  const usage = records[i]?.usage;
  return usage && { usage, index: i + offset };
}

function asBlocks(content: MessageParam["content"]): ContentBlockParam[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/**
 * How a load treats the end of the session, where a crash leaves its marks.
 * - `turn-start`: between turns. A trailing tool_use gets `is_error` results and a trailing user message a synthetic
 *   "(no reply: ...)"; the store appends both, so the caller appends the next user message as is.
 * - `in-turn`: a turn is under way; the end is returned as written, nothing is added.
 * - `read`: a trailing tool_use is answered in memory only; a reader never writes into another process's turn.
 */
export type LoadMode = "turn-start" | "in-turn" | "read";

/** What a store's `load` returns for a region read in `mode`, and the repair records it must append first (turn-start only). */
export function viewForLoad(region: LoadRegion, base: { key: string; file: string; ts: number }, mode: LoadMode): { session: LoadedSession; repairs: MessageRecord[] } {
  const tail = mode === "turn-start" ? "close" : mode === "in-turn" ? "none" : "answer";
  const built = buildSessionView(region, { ...base, newId: newRecordId, tail });
  built.session.agentId ??= agentIdFromKey(base.key);
  return { session: built.session, repairs: mode === "turn-start" ? built.tail : [] };
}

/** The records `show` prints for a region: the header, the last compaction, and each message with its structured answers. */
export function recordsToShow(region: LoadRegion): SessionRecord[] {
  const outputs = region.outputs ?? [];
  const messages = region.records.flatMap((record): SessionRecord[] => [record, ...outputs.filter((o) => o.messageId === record.id)]);
  return [...(region.header ? [region.header] : []), ...(region.compaction ? [region.compaction] : []), ...messages];
}
