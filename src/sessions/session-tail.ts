// Reading only the tail of a session file that loading needs: a compacted session loads in time proportional to what it keeps.
import { closeSync, readSync } from "node:fs";
import { openRegularSync } from "../fs/regular-file.js";
import { parseRecordLine } from "./line-parse.js";
import type { SessionRecord } from "./records.js";
import { COMPACTION_MARK, formatWarnings, keptMissing, parseHeader, parseRegion, type LoadRegion, type RegionWarning } from "./session-file.js";

/** The first read from the end; each further read doubles what is held. */
const FIRST_CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads a session file's load region backwards from the end: the last compaction line, then its first kept message,
 * then only the bytes from there on are decoded and parsed (a file never compacted is read whole). Line numbers in
 * warnings are counted only when there are warnings. Resolves to undefined when the file does not exist; rejects when
 * it is not a regular file. `chunkBytes` (the first read from the end) exists for tests. The reads are synchronous:
 * decoding blocks the event loop far longer than reading, and each trip through the thread pool costs ~0.3 ms.
 */
export async function readLoadRegionFromFile(file: string, options: { chunkBytes?: number } = {}): Promise<LoadRegion | undefined> {
  let opened: { fd: number; size: number };
  try {
    opened = openRegularSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
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

  /** Grows until the file offset `offset` is held. */
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
      const endRel = lineEndIn(this.buf, at);
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

/** The text of line 1 and the offset of its end. */
function readFirstLine(fd: number, size: number): { text: string; end: number } {
  for (let length = Math.min(size, 4096); ; length = Math.min(size, length * 4)) {
    const head = readAt(fd, 0, length);
    const end = head.indexOf(NEWLINE);
    if (end >= 0 || length === size) return { text: head.toString("utf8", 0, end < 0 ? length : end), end: end < 0 ? length : end };
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const bytesRead = readSync(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) return buffer.subarray(0, filled);
    filled += bytesRead;
  }
  return buffer;
}

function lineEndIn(buf: Buffer, at: number): number {
  const end = buf.indexOf(NEWLINE, at);
  return end < 0 ? buf.length : end;
}
