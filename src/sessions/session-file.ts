// Reading a session file: every line, or only the region a load needs, read from the end so its cost follows what is kept.
import { closeSync } from "node:fs";
import { ifMissing } from "../errors.js";
import { openRegularSync, readAt } from "../fs/regular-file.js";
import { type CompactionRecord, type HeaderRecord, type MessageRecord, type ModeRecord, type OutputRecord, type SessionRecord, parseRecordLine } from "./records.js";

/** What a load needs: the message records from the first kept one on, `afterCompaction` the ids after the compaction line; warnings `<file>:<line>: ...`. */
export interface LoadRegion {
  header?: HeaderRecord;
  compaction?: CompactionRecord;
  records: MessageRecord[];
  afterCompaction: Set<string>;
  outputs?: OutputRecord[];
  mode?: ModeRecord["mode"];
  lastTs?: number;
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
  const found = { ...(outputs.length > 0 && { outputs }), ...(mode !== undefined && { mode }), ...(lastTs !== undefined && { lastTs }) };
  return { ...(header && { header }), ...(compaction && { compaction }), records, afterCompaction, ...found };
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
  const lines = text.split("\n");
  lines.forEach((content, index) => {
    if (content.trim() === "") return;
    const parsed = parseRecordLine(content);
    if (parsed.ok) records.push(parsed.record);
    // The last element is the text after the last newline: "" when the file ends with one.
    else if (index === lines.length - 1) warnings.push({ line: index + 1, message: `skipped a torn last line (no newline at the end: its writer was interrupted): ${parsed.reason}` });
    else warnings.push({ line: index + 1, message: `skipped a corrupt line: ${parsed.reason}` });
  });
  return { records, warnings };
}

/** The first read from the end; each further read doubles what is held. */
const FIRST_CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads the load region from the end: the last compaction, its first kept message, and only what follows is parsed.
 * Undefined without a file; rejects a non-regular one. Synchronous: decoding blocks far longer than the thread pool's ~0.3 ms.
 */
export async function readLoadRegionFromFile(file: string, options: { chunkBytes?: number } = {}): Promise<LoadRegion | undefined> {
  let opened: { fd: number; size: number };
  try {
    opened = openRegularSync(file);
  } catch (error) {
    return ifMissing(error, undefined);
  }
  const { fd, size } = opened;
  try {
    const first = readFirstLine(fd, size);
    const header = parseHeader(first.text);
    const tail = new TailBuffer(fd, size, options.chunkBytes ?? FIRST_CHUNK_BYTES);
    const found = tail.findLastLine(COMPACTION_MARK, size, (record) => (record.type === "compaction" ? record : undefined));
    const keptId = found?.record.firstKeptId;
    const kept = found && tail.findLastLine(JSON.stringify(keptId), found.start, (r) => (r.type === "message" && r.id === keptId ? r : undefined));
    const start = Math.min(size, kept?.start ?? (found ? found.end + 1 : header ? first.end + 1 : 0));
    tail.cover(start);
    const region = parseRegion(tail.buf.toString("utf8", start - tail.start), { header, compaction: found?.record });
    const extra: RegionWarning[] = found && !kept ? [keptMissing(found.record)] : [];
    const all = [...extra, ...region.warnings];
    const base = all.length > 0 ? tail.newlinesBefore(start) : 0;
    const warnings = [...(header === undefined && start > 0 ? [`${file}:1: no readable session header`] : []), ...formatWarnings(all, base, file)];
    return { ...region, warnings };
  } finally {
    closeSync(fd);
  }
}

/** The end of a file, read backwards in growing chunks. */
class TailBuffer {
  buf: Buffer = Buffer.alloc(0);
  /** File offset of `buf[0]`. */
  start: number;

  constructor(private readonly fd: number, size: number, private readonly chunkBytes: number) {
    this.start = size;
  }

  /** Reads the chunk before what is held; false at the start of the file. */
  grow(): boolean {
    if (this.start === 0) return false;
    const length = Math.min(this.start, Math.max(this.chunkBytes, this.buf.length));
    const piece = readAt(this.fd, this.start - length, length);
    this.buf = this.buf.length === 0 ? piece : Buffer.concat([piece, this.buf]);
    this.start -= length;
    return true;
  }

  cover(offset: number): void {
    while (this.start > offset && this.grow());
  }

  /** The last whole line ending before file offset `before` that contains `needle` and whose record `accept` takes. */
  findLastLine<T>(needle: string, before: number, accept: (record: SessionRecord) => T | undefined): { start: number; end: number; record: T } | undefined {
    const bytes = Buffer.from(needle, "utf8");
    for (let limit = before; limit >= bytes.length; ) {
      const from = limit - bytes.length - this.start;
      const at = from < 0 ? -1 : this.buf.lastIndexOf(bytes, from);
      const newline = at <= 0 ? -1 : this.buf.lastIndexOf(NEWLINE, at - 1);
      if ((at < 0 || newline < 0) && this.grow()) continue;
      if (at < 0) return undefined;
      const startRel = newline + 1;
      const lineEnd = this.buf.indexOf(NEWLINE, at);
      const endRel = lineEnd < 0 ? this.buf.length : lineEnd;
      const parsed = parseRecordLine(this.buf.toString("utf8", startRel, endRel));
      const record = parsed.ok ? accept(parsed.record) : undefined;
      if (record !== undefined) return { start: this.start + startRel, end: this.start + endRel, record };
      limit = this.start + startRel;
    }
    return undefined;
  }

  /** The number of newlines in the file before `offset` (reads the rest of the file if needed). */
  newlinesBefore(offset: number): number {
    this.cover(0);
    let count = 0;
    for (let at = this.buf.indexOf(NEWLINE); at >= 0 && at < offset; at = this.buf.indexOf(NEWLINE, at + 1)) count++;
    return count;
  }
}

function readFirstLine(fd: number, size: number): { text: string; end: number } {
  for (let length = Math.min(size, 4096); ; length = Math.min(size, length * 4)) {
    const head = readAt(fd, 0, length);
    const end = head.indexOf(NEWLINE);
    if (end >= 0 || length === size) return { text: head.toString("utf8", 0, end < 0 ? length : end), end: end < 0 ? length : end };
  }
}
