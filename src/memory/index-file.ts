// The search index as flat data, persisted beside the notes as a versioned gzip file, read back or refused whole. A cache:
// checked against the notes' stamps, rebuilt at any doubt (gzip's CRC-32 catches damage), written only atomically.
import { endianness } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readRegularFile } from "../fs/regular-file.js";
import type { FileStamp, FolderChanges } from "./folder-tracker.js";
import type { PostingData } from "./postings.js";

/** Numbers kept per note, in `IndexData.noteFields`: its key's distinct words, its text's, then its stamp (mtimeMs, size, ino). */
export const NOTE_FIELDS = 5;
/** Where each of a note's numbers sits among its NOTE_FIELDS. */
export const [KEY_LENGTH, TEXT_LENGTH, MTIME, SIZE, INO] = [0, 1, 2, 3, 4] as const;

/** The index as flat data (no object per note for 10,000 notes): file names, NOTE_FIELDS numbers each (stamp NaN when untrusted), postings. */
export interface IndexData extends PostingData {
  fileNames: string[];
  noteFields: Float64Array;
}

/** True when the note at position `at` of `data` was recorded with `stamp`, as a stamp to trust. */
export function hasStamp(data: IndexData, at: number, stamp: FileStamp): boolean {
  const base = at * NOTE_FIELDS;
  return data.noteFields[base + MTIME] === stamp.mtimeMs && data.noteFields[base + SIZE] === stamp.size && data.noteFields[base + INO] === stamp.ino;
}

/** The notes to read again after starting from an index file's `data` (stamp differs, or not in the file) and those gone, by the first poll's stamps. */
export function changesSince(data: IndexData, polled: Map<string, FileStamp>): FolderChanges {
  const changed = new Map<string, FileStamp>();
  const removed: string[] = [];
  data.fileNames.forEach((fileName, at) => {
    const stamp = polled.get(fileName);
    if (stamp === undefined) removed.push(fileName);
    else if (!hasStamp(data, at, stamp)) changed.set(fileName, stamp);
  });
  if (data.fileNames.length - removed.length < polled.size) {
    const inFile = new Set(data.fileNames);
    for (const [fileName, stamp] of polled) if (!inFile.has(fileName)) changed.set(fileName, stamp);
  }
  return { changed, removed };
}

/** Name of the index file in the memory folder: hidden and not `.md`, so never a note, and no key maps to it. */
export const INDEX_FILE_NAME = ".search-index";
// Bump when the layout, the tokenizer or the scoring inputs change: an older file is then rebuilt.
const FORMAT = 2;
const MAGIC = Buffer.from("MCMEMIDX", "latin1");
// Inflation is capped (an index inflates about 2.5 times): a small planted gzip of zeros must not take gigabytes to refuse.
const INFLATE_RATIO = 32;
const MIN_INFLATED = 16 * 1024 * 1024;
const MAX_INFLATED = 1024 * 1024 * 1024;
const MIN_CHUNK = 64 * 1024;
const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** The JSON header: format, byte order, and the sizes of the sections. */
interface Header extends Record<"format" | "notes" | "nameBytes" | "termBytes" | "terms" | "postings", number> {
  endian: string;
}

// File names cannot hold NUL; words cannot hold a line break (the tokenizer splits there).
const NAME_SEPARATOR = "\0";
const TERM_SEPARATOR = "\n";

const align8 = (n: number): number => (n + 7) & ~7;

/** Byte offsets of the sections that follow the header. */
function layout(headerLength: number, h: Header): { names: number; terms: number; numbers: number; counts: number; docs: number; keyCounts: number; textCounts: number; end: number } {
  const names = MAGIC.length + 4 + headerLength;
  const terms = names + h.nameBytes;
  const numbers = align8(terms + h.termBytes);
  const counts = numbers + 8 * NOTE_FIELDS * h.notes;
  const docs = counts + 4 * h.terms;
  const keyCounts = docs + 4 * h.postings;
  const textCounts = keyCounts + h.postings;
  return { names, terms, numbers, counts, docs, keyCounts, textCounts, end: textCounts + h.postings };
}

/** The bytes of `data`, before gzip: magic, header length, JSON header, names, terms, note numbers, then term counts and posting docs (u32) and posting counts (u8). */
function encodeIndex(data: IndexData): Buffer {
  const nameBlob = Buffer.from(data.fileNames.join(NAME_SEPARATOR), "utf8");
  const termBlob = Buffer.from(data.terms.join(TERM_SEPARATOR), "utf8");
  const header: Header = { format: FORMAT, endian: endianness(), notes: data.fileNames.length, nameBytes: nameBlob.length, termBytes: termBlob.length, terms: data.terms.length, postings: data.docs.length };
  const headerBlob = Buffer.from(JSON.stringify(header), "utf8");
  const at = layout(headerBlob.length, header);
  const body = Buffer.alloc(at.end);
  MAGIC.copy(body, 0);
  body.writeUInt32LE(headerBlob.length, MAGIC.length);
  headerBlob.copy(body, MAGIC.length + 4);
  nameBlob.copy(body, at.names);
  termBlob.copy(body, at.terms);
  const sections: Array<[ArrayBufferView, number]> = [[data.noteFields, at.numbers], [data.counts, at.counts], [data.docs, at.docs], [data.keyCounts, at.keyCounts], [data.textCounts, at.textCounts]];
  for (const [array, offset] of sections) Buffer.from(array.buffer, array.byteOffset, array.byteLength).copy(body, offset);
  return body;
}

/** A typed array over `bytes`: a view when aligned (a read file's buffer is), else a copy. */
function view<T>(bytes: Buffer, at: number, length: number, Type: { new (b: ArrayBufferLike, o?: number, l?: number): T; BYTES_PER_ELEMENT: number }): T {
  const offset = bytes.byteOffset + at;
  if (offset % Type.BYTES_PER_ELEMENT === 0) return new Type(bytes.buffer, offset, length);
  return new Type(bytes.buffer.slice(offset, offset + length * Type.BYTES_PER_ELEMENT), 0, length);
}

function readHeader(bytes: Buffer): Header | undefined {
  if (bytes.length < MAGIC.length + 4 || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  const header = JSON.parse(bytes.toString("utf8", MAGIC.length + 4, MAGIC.length + 4 + headerLength)) as Header;
  if (header.format !== FORMAT || header.endian !== endianness()) return undefined;
  const sizes = [header.notes, header.nameBytes, header.termBytes, header.terms, header.postings];
  if (!sizes.every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined;
  if (layout(headerLength, header).end !== bytes.length) return undefined;
  return header;
}

/** The index in inflated `bytes`, or undefined unless whole, of this version and consistent (unique names, postings ascending, terms sorted). */
export function decodeIndex(bytes: Buffer, isNoteFile: (fileName: string) => boolean): IndexData | undefined {
  try {
    const header = readHeader(bytes);
    if (!header) return undefined;
    const at = layout(bytes.readUInt32LE(MAGIC.length), header);
    const fileNames = header.notes === 0 ? [] : bytes.toString("utf8", at.names, at.terms).split(NAME_SEPARATOR);
    if (fileNames.length !== header.notes || new Set(fileNames).size !== fileNames.length || !fileNames.every(isNoteFile)) return undefined;
    const fields = view(bytes, at.numbers, NOTE_FIELDS * header.notes, Float64Array);
    for (let i = 0; i < fields.length; i += NOTE_FIELDS) {
      // A note's key and text lengths are counts: never negative, never NaN.
      if (!((fields[i + KEY_LENGTH] as number) >= 0 && (fields[i + TEXT_LENGTH] as number) >= 0)) return undefined;
    }
    const terms = header.terms === 0 ? [] : bytes.toString("utf8", at.terms, at.terms + header.termBytes).split(TERM_SEPARATOR);
    const counts = view(bytes, at.counts, header.terms, Uint32Array);
    const docs = view(bytes, at.docs, header.postings, Uint32Array);
    const keyCounts = view(bytes, at.keyCounts, header.postings, Uint8Array);
    const textCounts = view(bytes, at.textCounts, header.postings, Uint8Array);
    const data = { fileNames, noteFields: fields, terms, counts, docs, keyCounts, textCounts };
    return isConsistent(data) ? data : undefined;
  } catch {
    return undefined;
  }
}

function isConsistent(data: IndexData): boolean {
  // Locals, not property loads: the loop runs over every posting once per process, mostly before V8 compiles it.
  const { terms, counts, docs, keyCounts, textCounts } = data;
  const notes = data.fileNames.length;
  if (terms.length !== counts.length) return false;
  let at = 0;
  for (let i = 0; i < terms.length; i++) {
    const term = terms[i] as string;
    if (term === "" || (i > 0 && (terms[i - 1] as string) >= term)) return false;
    const end = at + (counts[i] as number);
    if (end > docs.length || end === at) return false;
    let previous = -1;
    for (let p = at; p < end; p++) {
      const doc = docs[p] as number;
      if (doc >= notes || doc <= previous || (keyCounts[p] === 0 && textCounts[p] === 0)) return false;
      previous = doc;
    }
    at = end;
  }
  return at === docs.length;
}

/** Reads the index file of `dir`; undefined when there is none or it cannot be used. */
export async function readIndexFile(dir: string, isNoteFile: (fileName: string) => boolean): Promise<IndexData | undefined> {
  const packed = await readRegularFile(join(dir, INDEX_FILE_NAME)).catch(() => undefined);
  if (!packed || packed.length < 4) return undefined;
  const bytes = await gunzipAsync(packed, inflateOptions(packed)).catch(() => undefined);
  return bytes && decodeIndex(bytes, isNoteFile);
}

/** How an index file of 4 bytes or more is inflated: in one chunk, to at most a bounded multiple of its size. */
export function inflateOptions(packed: Buffer): { chunkSize: number; maxOutputLength: number } {
  const maxOutputLength = Math.min(MAX_INFLATED, Math.max(MIN_INFLATED, INFLATE_RATIO * packed.length));
  // gzip ends with the inflated size (mod 2^32): one chunk of that size inflates it in one job.
  const chunkSize = Math.min(maxOutputLength, Math.max(MIN_CHUNK, packed.readUInt32LE(packed.length - 4)));
  return { chunkSize, maxOutputLength };
}

/** Replaces the index file of `dir` atomically: readers see the previous file or this one, whole. */
export async function writeIndexFile(dir: string, data: IndexData): Promise<void> {
  await writeFileAtomic(join(dir, INDEX_FILE_NAME), await gzipAsync(encodeIndex(data), { level: 1 }));
}
