// Reading a session file's text into records: every line, or only the region loading needs.
import { parseRecordLine } from "./line-parse.js";
import type { CompactionRecord, HeaderRecord, MessageRecord, ModeRecord, OutputRecord, SessionRecord } from "./records.js";

/** The part of a file that loading needs. */
export interface LoadRegion {
  header?: HeaderRecord;
  /** The last compaction record whose line could be read. */
  compaction?: CompactionRecord;
  /** Message records from the compaction's first kept message on, in file order. */
  records: MessageRecord[];
  /** Ids of the records written after the compaction line (all of them when there is none). */
  afterCompaction: Set<string>;
  /** Structured answers of the region's turns (`output` records), in file order. */
  outputs?: OutputRecord[];
  /** The last permission mode recorded in the region, if any. */
  mode?: ModeRecord["mode"];
  /** Latest `ts` seen in the region, for "last activity". */
  lastTs?: number;
  /** Damaged lines, as `<file>:<line>: ...`. */
  warnings: string[];
}

/** A warning on a line of a region: `line` counts from the region's first line (1); 0 is the line just before it. */
export type RegionWarning = { line: number; message: string };

type RegionContext = { header?: HeaderRecord | undefined; compaction?: CompactionRecord | undefined };

/** The type mark every compaction line contains; searched for from the end of the file. */
export const COMPACTION_MARK = '"compaction"';

/** Parses every line of a file, in order; each torn or corrupt line is skipped and reported as `<file>:<line>: ...`. */
export function parseAllRecords(text: string, file: string): { records: SessionRecord[]; warnings: string[] } {
  const parsed = parseLines(text);
  return { records: parsed.records, warnings: formatWarnings(parsed.warnings, 0, file) };
}

/** Parses the text of a load region (from the first kept message to the end of the file); warnings are numbered within the region. */
export function parseRegion(text: string, context: RegionContext): Omit<LoadRegion, "warnings"> & { warnings: RegionWarning[] } {
  const { records, warnings } = parseLines(text);
  return { ...regionOfRecords(records, context), warnings };
}

/** The region of records already read (from the first kept message on, in order), for a store that keeps records rather than lines. */
export function regionOfRecords(all: readonly SessionRecord[], context: RegionContext): Omit<LoadRegion, "warnings"> {
  const { header, compaction } = context;
  const records: MessageRecord[] = [];
  const outputs: OutputRecord[] = [];
  let mode: ModeRecord["mode"] | undefined = compaction?.mode;
  const afterCompaction = new Set<string>();
  let passed = compaction === undefined;
  let lastTs = compaction?.ts ?? header?.ts;
  for (const record of all) {
    if (record.type === "compaction" && record.id === compaction?.id) passed = true;
    if (record.type === "output") outputs.push(record);
    if (record.type === "mode") mode = record.mode;
    if (record.type !== "message") continue;
    records.push(record);
    if (passed) afterCompaction.add(record.id);
    lastTs = lastTs === undefined ? record.ts : Math.max(lastTs, record.ts);
  }
  return {
    ...(header && { header }),
    ...(compaction && { compaction }),
    records,
    afterCompaction,
    ...(outputs.length > 0 && { outputs }),
    ...(mode !== undefined && { mode }),
    ...(lastTs !== undefined && { lastTs }),
  };
}

/** The warning for a compaction whose first kept message is not in the file (on the line before the region). */
export function keptMissing(compaction: CompactionRecord): RegionWarning {
  return { line: 0, message: `the first kept message ${compaction.firstKeptId} of this compaction was not found; loading from the compaction on` };
}

/** The header record in the text of line 1, if it is one. */
export function parseHeader(line: string): HeaderRecord | undefined {
  const parsed = line.trim() === "" ? undefined : parseRecordLine(line);
  return parsed?.ok && parsed.record.type === "session" ? parsed.record : undefined;
}

/** Formats region warnings as `<file>:<line>: ...`, `base` being the number of lines before the region. */
export function formatWarnings(warnings: RegionWarning[], base: number, file: string): string[] {
  return warnings.map((warning) => `${file}:${base + warning.line}: ${warning.message}`);
}

/** Parses each line in order; a line without a final newline that fails to parse is reported as torn. */
function parseLines(text: string): { records: SessionRecord[]; warnings: RegionWarning[] } {
  const records: SessionRecord[] = [];
  const warnings: RegionWarning[] = [];
  for (let start = 0, line = 1; start < text.length; line++) {
    const newline = text.indexOf("\n", start);
    const end = newline < 0 ? text.length : newline;
    const content = text.slice(start, end);
    if (content.trim() !== "") {
      const parsed = parseRecordLine(content);
      if (parsed.ok) records.push(parsed.record);
      else if (end === text.length) warnings.push({ line, message: `skipped a torn last line (no newline at the end: its writer was interrupted): ${parsed.reason}` });
      else warnings.push({ line, message: `skipped a corrupt line: ${parsed.reason}` });
    }
    start = end + 1;
  }
  return { records, warnings };
}
