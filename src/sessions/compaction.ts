// Compaction planning (pure): where to cut a session so the kept tail is whole, and the record that says so.
import { newRecordId, type CompactionRecord, type MessageRecord } from "./records.js";
import { isPlainUserMessage } from "./repair.js";
import { estimateTokens } from "./tokens.js";

export { buildSummaryRequestText, splitForSummary, SUMMARY_SYSTEM_PROMPT } from "./summary-prompt.js";
export { trimOldToolResults } from "./trim-tool-results.js";

/** The share of the context window kept verbatim after a compaction, by default. */
export const KEEP_SHARE_OF_WINDOW = 0.25;
/** Compaction triggers when the next request passes this share of the window, by default. */
export const COMPACT_AT_SHARE_OF_WINDOW = 0.8;

/** Where to cut: everything before `cutIndex` is summarized, the rest kept as is. */
export interface CompactionPlan {
  /** Index in the given records of the first kept one. */
  cutIndex: number;
  /** Id of the first kept record: a plain user text message written in the file. */
  firstKeptId: string;
  toSummarize: MessageRecord[];
  kept: MessageRecord[];
  /** Estimated tokens of each part. */
  summarizedTokens: number;
  keptTokens: number;
}

/**
 * Plans a compaction of a loaded session's `records`. The kept tail holds about `keepTokens` and starts at a plain user
 * message (no tool_result), so no tool_use/tool_result pair is split and the first kept message can carry the summary;
 * synthetic records (some exist only in memory) are never cut points. Returns null when no cut point exists after the
 * first record (one long turn of tool calls, say). Pure.
 */
export function planCompaction(records: MessageRecord[], options: { keepTokens: number }): CompactionPlan | null {
  const tokens = records.map((record) => estimateTokens(record.message));
  let budgetIndex = records.length;
  for (let i = records.length - 1, tail = 0; i >= 0; i--) {
    tail += tokens[i] ?? 0;
    budgetIndex = i;
    if (tail >= options.keepTokens) break;
  }
  const isCut = (i: number): boolean => {
    const record = records[i];
    return record !== undefined && record.synthetic !== true && isPlainUserMessage(record.message);
  };
  // The tail from budgetIndex on holds keepTokens already (one huge message may hold far more): cut after it
  // to keep a little less, or failing that at it or before it, keeping more.
  let cutIndex = -1;
  for (let i = Math.max(1, budgetIndex + 1); i < records.length && cutIndex < 0; i++) if (isCut(i)) cutIndex = i;
  for (let i = Math.min(budgetIndex, records.length - 1); i >= 1 && cutIndex < 0; i--) if (isCut(i)) cutIndex = i;
  const first = records[cutIndex];
  if (cutIndex < 1 || first === undefined) return null;
  const sum = (from: number, to: number): number => tokens.slice(from, to).reduce((a, b) => a + b, 0);
  return {
    cutIndex,
    firstKeptId: first.id,
    toSummarize: records.slice(0, cutIndex),
    kept: records.slice(cutIndex),
    summarizedTokens: sum(0, cutIndex),
    keptTokens: sum(cutIndex, records.length),
  };
}

/**
 * The compaction record to append once the model has written `summary` for `plan`. `tokensBefore` is the context size
 * that triggered it; `skills` names the skills loaded before the cut so the model can load them again.
 */
export function compactionRecordFor(plan: CompactionPlan, summary: string, meta: { ts: number; tokensBefore: number; skills?: string[] }): CompactionRecord {
  return {
    type: "compaction",
    id: newRecordId(),
    ts: meta.ts,
    summary,
    firstKeptId: plan.firstKeptId,
    replacedMessages: plan.toSummarize.filter((record) => record.synthetic !== true).length,
    tokensBefore: meta.tokensBefore,
    ...(meta.skills !== undefined && meta.skills.length > 0 && { skills: meta.skills }),
  };
}
