// Reading a session file's text into records: the whole file, or only what loading needs (from the last compaction on).
import { parseRecordLine } from "./line-parse.js";
import type { CompactionRecord, HeaderRecord, MessageRecord, SessionRecord } from "./records.js";

/** The part of a file that loading needs. */
export interface LoadRegion {
  header?: HeaderRecord;
  /** The last compaction record whose line could be read. */
  compaction?: CompactionRecord;
  /** Message records from the compaction's first kept message on, in file order. */
  records: MessageRecord[];
  /** Ids of the records written after the compaction line (all of them when there is none). */
  afterCompaction: Set<string>;
  /** Latest `ts` seen in the region, for "last activity". */
  lastTs?: number;
  warnings: string[];
}

const COMPACTION_MARK = '"compaction"';

/**
 * Parses every line of a file, in order, skipping blank ones. Each torn or
 * corrupt line is skipped and reported in `warnings` as `<file>:<line>: ...`.
 */
export function parseAllRecords(text: string, file: string): { records: SessionRecord[]; warnings: string[] } {
  const lines = text.split("\n");
  const records: SessionRecord[] = [];
  const warnings: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const record = parseAt(lines, i, file, warnings);
    if (record !== undefined) records.push(record);
  }
  return { records, warnings };
}

/**
 * Reads what loading needs, fast on large files: the header (line 1), then the last
 * compaction found by scanning back from the end for lines that mention one, then
 * its first kept message found by scanning back for its id; only lines from there
 * on are parsed. Lines before the region are not read, so their damage is not
 * reported: they are not used. When the first kept message cannot be found, the
 * region starts after the compaction line and a warning says so.
 */
export function readLoadRegion(text: string, file: string): LoadRegion {
  const lines = text.split("\n");
  const warnings: string[] = [];
  const warned = new Set<number>();
  const first = parseAt(lines, 0, file, warnings, warned);
  const header = first?.type === "session" ? first : undefined;
  const found = findLastCompaction(lines, file, warnings, warned);
  let start = header ? 1 : 0;
  if (found) {
    const kept = findMessageLine(lines, found.line, found.record.firstKeptId);
    if (kept === undefined) warnings.push(`${file}:${found.line + 1}: the first kept message ${found.record.firstKeptId} of this compaction was not found; loading from the compaction on`);
    start = kept ?? found.line + 1;
  }
  const records: MessageRecord[] = [];
  const afterCompaction = new Set<string>();
  let lastTs = found?.record.ts ?? header?.ts;
  for (let i = start; i < lines.length; i++) {
    if (i === found?.line || warned.has(i)) continue;
    const record = parseAt(lines, i, file, warnings, warned);
    if (record?.type !== "message") continue;
    records.push(record);
    if (found === undefined || i > found.line) afterCompaction.add(record.id);
    lastTs = lastTs === undefined ? record.ts : Math.max(lastTs, record.ts);
  }
  return {
    ...(header && { header }),
    ...(found && { compaction: found.record }),
    records,
    afterCompaction,
    ...(lastTs !== undefined && { lastTs }),
    warnings,
  };
}

function findLastCompaction(lines: string[], file: string, warnings: string[], warned: Set<number>): { line: number; record: CompactionRecord } | undefined {
  for (let i = lines.length - 1; i >= 1; i--) {
    if (!lines[i]?.includes(COMPACTION_MARK)) continue;
    const record = parseAt(lines, i, file, warnings, warned);
    if (record?.type === "compaction") return { line: i, record };
  }
  return undefined;
}

function findMessageLine(lines: string[], before: number, id: string): number | undefined {
  const needle = JSON.stringify(id);
  for (let i = before - 1; i >= 0; i--) {
    const line = lines[i];
    if (line === undefined || !line.includes(needle)) continue;
    const parsed = parseRecordLine(line);
    if (parsed.ok && parsed.record.type === "message" && parsed.record.id === id) return i;
  }
  return undefined;
}

/** Parses line `i`, or records a warning naming file and line; blank lines are skipped silently. */
function parseAt(lines: string[], i: number, file: string, warnings: string[], warned?: Set<number>): SessionRecord | undefined {
  const line = lines[i];
  if (line === undefined || line.trim() === "") return undefined;
  const parsed = parseRecordLine(line);
  if (parsed.ok) return parsed.record as MessageRecord | HeaderRecord | CompactionRecord;
  if (warned?.has(i)) return undefined;
  warned?.add(i);
  const torn = i === lines.length - 1;
  warnings.push(
    torn
      ? `${file}:${i + 1}: skipped a torn last line (no newline at the end: its writer was interrupted): ${parsed.reason}`
      : `${file}:${i + 1}: skipped a corrupt line: ${parsed.reason}`,
  );
  return undefined;
}
