// The persisted search index beside the notes: a versioned, checksummed binary file, read back or refused whole.
//
// It is a cache derived from the notes, never a source of truth: whatever it says is checked
// against the notes' stamps before use, any doubt (torn, corrupt, another version, another
// tokenizer) makes the store ignore it and rebuild, and the store writes it only atomically.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { endianness } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic-write.js";
import type { FileStamp } from "./folder-tracker.js";
import type { IndexData, IndexedDoc } from "./search-index.js";

/**
 * Name of the index file in the memory folder. Hidden and not `.md`, so it is never
 * listed as a note, and no memory key maps to it (a key's file name always ends in `.md`).
 */
export const INDEX_FILE_NAME = ".search-index";
// Bump when the layout, the tokenizer or the scoring inputs change: an older file is then rebuilt.
const FORMAT = 1;
const MAGIC = Buffer.from("MCMEMIDX", "latin1");
const HASH_BYTES = 32;

interface Header {
  format: number;
  endian: string;
  notes: number;
  nameBytes: number;
  termBytes: number;
  terms: number;
  postings: number;
}

// Per note in the numbers section: key length, text length, then mtimeMs, size, ino (NaN when untrusted).
const NOTE_FIELDS = 5;
// File names cannot hold NUL; words cannot hold a line break (the tokenizer splits there).
const NAME_SEPARATOR = "\0";
const TERM_SEPARATOR = "\n";

const align8 = (n: number): number => (n + 7) & ~7;

/** Byte offsets of the sections that follow the header. */
function layout(headerLength: number, h: Header): { names: number; terms: number; numbers: number; counts: number; docs: number; freqs: number; end: number } {
  const names = MAGIC.length + 4 + headerLength;
  const terms = names + h.nameBytes;
  const numbers = align8(terms + h.termBytes);
  const counts = numbers + 8 * NOTE_FIELDS * h.notes;
  const docs = counts + 4 * h.terms;
  const freqs = docs + 4 * h.postings;
  return { names, terms, numbers, counts, docs, freqs, end: freqs + 4 * h.postings };
}

/** The bytes of `data`: magic, header length, JSON header, names, terms, numbers, three u32 arrays, SHA-256 of all before. */
export function encodeIndex(data: IndexData): Buffer {
  const nameBlob = Buffer.from(data.notes.map((note) => note.fileName).join(NAME_SEPARATOR), "utf8");
  const termBlob = Buffer.from(data.terms.join(TERM_SEPARATOR), "utf8");
  const header: Header = { format: FORMAT, endian: endianness(), notes: data.notes.length, nameBytes: nameBlob.length, termBytes: termBlob.length, terms: data.terms.length, postings: data.docs.length };
  const headerBlob = Buffer.from(JSON.stringify(header), "utf8");
  const at = layout(headerBlob.length, header);
  const numbers = new Float64Array(NOTE_FIELDS * data.notes.length);
  data.notes.forEach((note, i) => numbers.set([note.keyLength, note.textLength, note.stamp?.mtimeMs ?? NaN, note.stamp?.size ?? NaN, note.stamp?.ino ?? NaN], NOTE_FIELDS * i));
  const body = Buffer.alloc(at.end + HASH_BYTES);
  MAGIC.copy(body, 0);
  body.writeUInt32LE(headerBlob.length, MAGIC.length);
  headerBlob.copy(body, MAGIC.length + 4);
  nameBlob.copy(body, at.names);
  termBlob.copy(body, at.terms);
  const sections: Array<[ArrayBufferView, number]> = [[numbers, at.numbers], [data.counts, at.counts], [data.docs, at.docs], [data.freqs, at.freqs]];
  for (const [array, offset] of sections) Buffer.from(array.buffer, array.byteOffset, array.byteLength).copy(body, offset);
  createHash("sha256").update(body.subarray(0, at.end)).digest().copy(body, at.end);
  return body;
}

/** A typed array over `bytes`: a view when aligned (a read file's buffer is), else a copy. */
function view<T>(bytes: Buffer, at: number, length: number, Type: { new (b: ArrayBufferLike, o?: number, l?: number): T; BYTES_PER_ELEMENT: number }): T {
  const offset = bytes.byteOffset + at;
  if (offset % Type.BYTES_PER_ELEMENT === 0) return new Type(bytes.buffer, offset, length);
  return new Type(bytes.buffer.slice(offset, offset + length * Type.BYTES_PER_ELEMENT), 0, length);
}

function readHeader(bytes: Buffer): Header | undefined {
  if (bytes.length < MAGIC.length + 4 + HASH_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const digest = createHash("sha256").update(bytes.subarray(0, bytes.length - HASH_BYTES)).digest();
  if (!digest.equals(bytes.subarray(bytes.length - HASH_BYTES))) return undefined;
  const headerLength = bytes.readUInt32LE(MAGIC.length);
  const header = JSON.parse(bytes.toString("utf8", MAGIC.length + 4, MAGIC.length + 4 + headerLength)) as Header;
  if (header.format !== FORMAT || header.endian !== endianness()) return undefined;
  const sizes = [header.notes, header.nameBytes, header.termBytes, header.terms, header.postings];
  if (!sizes.every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined;
  if (layout(headerLength, header).end + HASH_BYTES !== bytes.length) return undefined;
  return header;
}

function readNotes(bytes: Buffer, at: ReturnType<typeof layout>, count: number): IndexedDoc[] | undefined {
  const names = count === 0 ? [] : bytes.toString("utf8", at.names, at.terms).split(NAME_SEPARATOR);
  const numbers = view(bytes, at.numbers, NOTE_FIELDS * count, Float64Array);
  if (names.length !== count) return undefined;
  return names.map((fileName, i) => {
    const at = NOTE_FIELDS * i;
    const [mtimeMs, size, ino] = [numbers[at + 2] as number, numbers[at + 3] as number, numbers[at + 4] as number];
    const trusted = Number.isFinite(mtimeMs) && Number.isFinite(size) && Number.isFinite(ino);
    return { fileName, keyLength: numbers[at] as number, textLength: numbers[at + 1] as number, stamp: trusted ? { mtimeMs, size, ino } : undefined };
  });
}

/**
 * The index held in `bytes`, or undefined when they are not a whole, consistent index of
 * this version: checksum, sizes, note names unique, every posting pointing at a note,
 * postings of a term in ascending order, terms sorted and unique.
 */
export function decodeIndex(bytes: Buffer, isNoteFile: (fileName: string) => boolean): IndexData | undefined {
  try {
    const header = readHeader(bytes);
    if (!header) return undefined;
    const at = layout(bytes.readUInt32LE(MAGIC.length), header);
    const notes = readNotes(bytes, at, header.notes);
    if (!notes || new Set(notes.map((note) => note.fileName)).size !== notes.length) return undefined;
    if (notes.some((note) => !isNoteFile(note.fileName) || !(note.keyLength >= 0) || !(note.textLength >= 0))) return undefined;
    const terms = header.terms === 0 ? [] : bytes.toString("utf8", at.terms, at.terms + header.termBytes).split(TERM_SEPARATOR);
    const counts = view(bytes, at.counts, header.terms, Uint32Array);
    const docs = view(bytes, at.docs, header.postings, Uint32Array);
    const freqs = view(bytes, at.freqs, header.postings, Uint32Array);
    const data = { notes, terms, counts, docs, freqs };
    return isConsistent(data) ? data : undefined;
  } catch {
    return undefined;
  }
}

function isConsistent(data: IndexData): boolean {
  if (data.terms.length !== data.counts.length) return false;
  let at = 0;
  for (let i = 0; i < data.terms.length; i++) {
    const term = data.terms[i] as string;
    if (term === "" || (i > 0 && (data.terms[i - 1] as string) >= term)) return false;
    const end = at + (data.counts[i] as number);
    if (end > data.docs.length || end === at) return false;
    for (let p = at; p < end; p++) {
      const doc = data.docs[p] as number;
      if (doc >= data.notes.length || (p > at && doc <= (data.docs[p - 1] as number)) || data.freqs[p] === 0) return false;
    }
    at = end;
  }
  return at === data.docs.length;
}

/** Reads the index file of `dir`; undefined when there is none or it cannot be used. */
export async function readIndexFile(dir: string, isNoteFile: (fileName: string) => boolean): Promise<IndexData | undefined> {
  const bytes = await readFile(join(dir, INDEX_FILE_NAME)).catch(() => undefined);
  return bytes && decodeIndex(bytes, isNoteFile);
}

/** Replaces the index file of `dir` atomically: readers see the previous file or this one, whole. */
export async function writeIndexFile(dir: string, data: IndexData): Promise<void> {
  await writeFileAtomic(join(dir, INDEX_FILE_NAME), encodeIndex(data));
}
