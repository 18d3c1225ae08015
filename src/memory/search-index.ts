// NoteIndex: the in-memory BM25+ index of the notes, in flat arrays that load from disk without rebuilding.
import type { FileStamp } from "./folder-tracker.js";
import { bestOf, bitCount, bm25, idf, lowerBound, mergeSorted } from "./ranking.js";
import { keyText, processTerm, tokenize } from "./terms.js";

/** One ranked note, before the store adds its snippet and time. */
export interface IndexHit {
  fileName: string;
  score: number;
  /** The indexed words of the note that matched, for the snippet. */
  terms: string[];
}

/** Numbers kept per note, in `IndexData.noteFields`: its key's distinct words, its text's, then its stamp (mtimeMs, size, ino). */
export const NOTE_FIELDS = 5;
/** Where each of a note's numbers sits among its NOTE_FIELDS. */
export const [KEY_LENGTH, TEXT_LENGTH, MTIME, SIZE, INO] = [0, 1, 2, 3, 4] as const;

/**
 * The whole index as flat data: the notes by position (their file names, and `NOTE_FIELDS`
 * numbers each, the stamp NaN where it must not be trusted later); terms sorted, and for the
 * i-th term `counts[i]` postings, consecutive in `docs` (ascending note positions), `keyCounts`
 * and `textCounts` (how often the term occurs in that note's key and in its text). Flat, so that loading 10,000 notes builds no object per note.
 */
export interface IndexData {
  fileNames: string[];
  noteFields: Float64Array;
  terms: string[];
  counts: Uint32Array;
  docs: Uint32Array;
  keyCounts: Uint8Array;
  textCounts: Uint8Array;
}

/** True when the note at position `at` of `data` was recorded with `stamp`, as a stamp to trust. */
export function hasStamp(data: IndexData, at: number, stamp: FileStamp): boolean {
  const base = at * NOTE_FIELDS;
  return data.noteFields[base + MTIME] === stamp.mtimeMs && data.noteFields[base + SIZE] === stamp.size && data.noteFields[base + INO] === stamp.ino;
}

/** Characters of a note that are indexed; the rest of a very large file is not searchable. */
export const MAX_INDEXED_CHARS = 200_000;
/** How much more a word in the key counts than the same word in the body. */
export const KEY_BOOST = 3;
/** Query words this long or longer also match longer words they start ("deploy" finds "deployment"). */
const PREFIX_MIN_CHARS = 4;
// The weight of a longer word a query word starts, as MiniSearch (which this index replaced) gives it.
const PREFIX_WEIGHT = 0.375;
// A word's count in one note is capped here, to fit a byte. BM25's count term is then within 0.5% of its
// limit in a note of average length; notes that each hold a word more often than this rank on length alone.
const MAX_COUNT = 0xff;

/** Postings of one term, side by side: note positions (ascending) and the term's counts there. */
interface Segment<T extends ArrayLike<number>> {
  docs: T;
  keyCounts: T;
  textCounts: T;
}

/** What one query accumulates per note position. */
interface Tally {
  score: Float64Array;
  /** Bit i set: the note matched query word i, exactly or by prefix. */
  queryTerms: Uint32Array;
  /** Bit i set: the note holds query word i verbatim. */
  exact: Uint32Array;
  touched: number[];
}

/** How often each index term occurs in `text` (the words tokenized and processed as the index does). */
export function countTerms(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of tokenize(text)) {
    const term = processTerm(word);
    if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return counts;
}

/**
 * Full-text index of notes keyed by file name: BM25+ over the key (boosted) and the body,
 * query words combined with OR, words of four letters or more also matching by prefix.
 * No score threshold: every note matching a query word is a candidate, and `search`
 * guarantees that each query word found verbatim in some note is represented in the results.
 * A replaced or removed note leaves dead postings behind until `exportData` compacts them.
 */
export class NoteIndex {
  private names: (string | undefined)[] = [];
  // NOTE_FIELDS numbers per position (IndexData.noteFields); after a load, the loaded array itself until a note is added.
  private fields: Float64Array = new Float64Array(0);
  // File name → position, built at the first upsert or removal after a load: a search needs none.
  private positionsByName: Map<string, number> | undefined = new Map();
  private live = 0;
  // The postings loaded whole (from the index file, or by the last export): terms sorted, the i-th
  // term's postings from baseStarts[i] to baseStarts[i + 1] in baseDocs, baseKeyCounts and baseTextCounts. Kept as
  // arrays, not a map, so that loading 10,000 notes' index builds no object per term.
  private baseTerms: readonly string[] = [];
  private baseStarts: Uint32Array = new Uint32Array(1);
  private baseDocs: Uint32Array = new Uint32Array(0);
  private baseKeyCounts: Uint8Array = new Uint8Array(0);
  private baseTextCounts: Uint8Array = new Uint8Array(0);
  // Postings added since, by term; and the terms of those not in baseTerms.
  private readonly added = new Map<string, Segment<number[]>>();
  private newTerms: string[] = [];
  private newTermsSorted = true;
  private keyLengthSum = 0;
  private textLengthSum = 0;

  /** An index holding exactly `data` (already validated by whoever read it). */
  static fromData(data: IndexData): NoteIndex {
    const index = new NoteIndex();
    index.load(data);
    return index;
  }

  /** Number of notes indexed. */
  get size(): number {
    return this.live;
  }

  /** True when the note is indexed. */
  has(fileName: string): boolean {
    return this.positions().has(fileName);
  }

  /** Adds a note or replaces its previous version; `stamp` is kept for `exportData`. */
  upsert(fileName: string, key: string, content: string, stamp?: FileStamp): void {
    this.remove(fileName);
    const at = this.names.length;
    const keyCounts = countTerms(keyText(key));
    const textCounts = countTerms(content.slice(0, MAX_INDEXED_CHARS));
    this.names.push(fileName);
    this.growFields(at + 1);
    this.fields.set([keyCounts.size, textCounts.size, stamp?.mtimeMs ?? NaN, stamp?.size ?? NaN, stamp?.ino ?? NaN], at * NOTE_FIELDS);
    this.positions().set(fileName, at);
    this.live++;
    this.keyLengthSum += keyCounts.size;
    this.textLengthSum += textCounts.size;
    for (const [term, count] of textCounts) this.addPosting(term, at, keyCounts.get(term) ?? 0, count);
    for (const [term, count] of keyCounts) if (!textCounts.has(term)) this.addPosting(term, at, count, 0);
  }

  /** Removes a note; unknown names are ignored. */
  remove(fileName: string): void {
    const positions = this.positions();
    const at = positions.get(fileName);
    if (at === undefined) return;
    positions.delete(fileName);
    this.live--;
    this.names[at] = undefined;
    this.keyLengthSum -= this.field(at, KEY_LENGTH);
    this.textLengthSum -= this.field(at, TEXT_LENGTH);
  }

  /**
   * The best `limit` notes for the query, best first. When a query word occurs verbatim in
   * some note but in none of the top notes (outranked by notes rich in the other words), the
   * best note holding it takes the place of the lowest-ranked unprotected one.
   */
  search(query: string, limit: number): IndexHit[] {
    const queryTerms = tokenize(query).map(processTerm).filter(Boolean).slice(0, 32);
    const size = this.names.length;
    const tally: Tally = { score: new Float64Array(size), queryTerms: new Uint32Array(size), exact: new Uint32Array(size), touched: [] };
    const expansions = queryTerms.map((term) => (term.length < PREFIX_MIN_CHARS ? [] : this.withPrefix(term)));
    queryTerms.forEach((term, i) => this.scoreTerm(term, expansions[i] as string[], i, tally));
    const final = new Float64Array(size);
    // Indexed loops over the touched notes: cold, as the first search runs them, a for-of allocates per step.
    for (let i = 0; i < tally.touched.length; i++) {
      const at = tally.touched[i] as number;
      final[at] = (tally.score[at] as number) * Math.max(1, bitCount(tally.queryTerms[at] as number));
    }
    const top = bestOf(tally.touched, limit, final);
    const kept = new Set<number>();
    queryTerms.forEach((_, i) => {
      const holds = (at: number): boolean => ((tally.exact[at] as number) & (1 << i)) !== 0;
      if (top.some(holds)) return;
      const [best] = bestOf(tally.touched.filter(holds), 1, final);
      const slot = top.findLastIndex((at) => !kept.has(at));
      if (best === undefined || slot < 0) return;
      top[slot] = best;
      kept.add(best);
    });
    return bestOf(top, top.length, final).map((at) => ({ fileName: this.names[at] as string, score: final[at] as number, terms: this.matchedTerms(at, queryTerms, expansions) }));
  }


  /**
   * The index as flat data, dead postings dropped and positions renumbered; the index
   * itself is compacted to that form, so this also reclaims what replaced notes left.
   */
  exportData(): IndexData {
    const renumber = new Int32Array(this.names.length).fill(-1);
    const fileNames: string[] = [];
    const noteFields = new Float64Array(this.live * NOTE_FIELDS);
    this.names.forEach((fileName, at) => {
      if (fileName === undefined) return;
      noteFields.set(this.fields.subarray(at * NOTE_FIELDS, (at + 1) * NOTE_FIELDS), fileNames.length * NOTE_FIELDS);
      renumber[at] = fileNames.length;
      fileNames.push(fileName);
    });
    let total = this.baseDocs.length;
    for (const segment of this.added.values()) total += segment.docs.length;
    const docs = new Uint32Array(total);
    const keyCounts = new Uint8Array(total);
    const textCounts = new Uint8Array(total);
    const terms: string[] = [];
    const counts: number[] = [];
    let n = 0;
    for (const term of mergeSorted(this.baseTerms, this.sortedNewTerms())) {
      const before = n;
      for (const segment of this.segments(term)) {
        for (let p = 0; p < segment.docs.length; p++) {
          const to = renumber[segment.docs[p] as number] as number;
          if (to < 0) continue;
          docs[n] = to;
          keyCounts[n] = segment.keyCounts[p] as number;
          textCounts[n++] = segment.textCounts[p] as number;
        }
      }
      if (n > before) {
        terms.push(term);
        counts.push(n - before);
      }
    }
    const data = { fileNames, noteFields, terms, counts: Uint32Array.from(counts), docs: docs.slice(0, n), keyCounts: keyCounts.slice(0, n), textCounts: textCounts.slice(0, n) };
    this.load(data);
    return data;
  }

  private load(data: IndexData): void {
    this.names = data.fileNames.slice();
    // Not copied: positions are only ever added after the loaded ones, into a grown copy (growFields).
    this.fields = data.noteFields;
    this.positionsByName = undefined;
    this.live = this.names.length;
    // Loops over locals: this code runs once per process, before V8 has compiled it, so every property access counts.
    const fields = this.fields;
    let keyLengthSum = 0;
    let textLengthSum = 0;
    for (let i = 0; i < fields.length; i += NOTE_FIELDS) {
      keyLengthSum += fields[i + KEY_LENGTH] as number;
      textLengthSum += fields[i + TEXT_LENGTH] as number;
    }
    this.keyLengthSum = keyLengthSum;
    this.textLengthSum = textLengthSum;
    this.baseTerms = data.terms;
    const counts = data.counts;
    const starts = new Uint32Array(counts.length + 1);
    for (let i = 0, at = 0; i < counts.length; i++) starts[i + 1] = at += counts[i] as number;
    this.baseStarts = starts;
    this.added.clear();
    this.newTerms = [];
    this.newTermsSorted = true;
    this.baseDocs = data.docs;
    this.baseKeyCounts = data.keyCounts;
    this.baseTextCounts = data.textCounts;
  }

  private positions(): Map<string, number> {
    if (!this.positionsByName) {
      const positions = new Map<string, number>();
      this.names.forEach((name, at) => name !== undefined && positions.set(name, at));
      this.positionsByName = positions;
    }
    return this.positionsByName;
  }

  /** Makes room for the fields of `notes` positions, doubling, so that appending stays cheap. */
  private growFields(notes: number): void {
    if (this.fields.length >= notes * NOTE_FIELDS) return;
    const grown = new Float64Array(Math.max(notes * NOTE_FIELDS, 2 * this.fields.length));
    grown.set(this.fields);
    this.fields = grown;
  }

  private field(at: number, which: number): number {
    return this.fields[at * NOTE_FIELDS + which] as number;
  }

  private addPosting(term: string, at: number, keyCount: number, textCount: number): void {
    let segment = this.added.get(term);
    if (!segment) {
      segment = { docs: [], keyCounts: [], textCounts: [] };
      this.added.set(term, segment);
      if (this.baseIndexOf(term) < 0) {
        this.newTerms.push(term);
        this.newTermsSorted = false;
      }
    }
    segment.docs.push(at);
    segment.keyCounts.push(Math.min(MAX_COUNT, keyCount));
    segment.textCounts.push(Math.min(MAX_COUNT, textCount));
  }

  /** Position of `term` in `baseTerms`, or -1. */
  private baseIndexOf(term: string): number {
    const i = lowerBound(this.baseTerms, term);
    return this.baseTerms[i] === term ? i : -1;
  }

  private sortedNewTerms(): string[] {
    if (!this.newTermsSorted) this.newTerms.sort();
    this.newTermsSorted = true;
    return this.newTerms;
  }

  /** The postings of `term`: those loaded whole, then those added since (each part absent when empty). */
  private segments(term: string): Segment<ArrayLike<number>>[] {
    const found: Segment<ArrayLike<number>>[] = [];
    const i = this.baseIndexOf(term);
    if (i >= 0) {
      const [from, to] = [this.baseStarts[i] as number, this.baseStarts[i + 1] as number];
      found.push({ docs: this.baseDocs.subarray(from, to), keyCounts: this.baseKeyCounts.subarray(from, to), textCounts: this.baseTextCounts.subarray(from, to) });
    }
    const added = this.added.get(term);
    if (added) found.push(added);
    return found;
  }

  /** Scores one query word, exactly and by the longer words it starts; returns the positions holding it verbatim. */
  private scoreTerm(queryTerm: string, expansion: string[], queryIndex: number, tally: Tally): void {
    this.scorePostings(queryTerm, 1, queryIndex, tally, true);
    for (const term of expansion) {
      const distance = term.length - queryTerm.length;
      if (distance > 0) this.scorePostings(term, (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), queryIndex, tally, false);
    }
  }

  private scorePostings(term: string, weight: number, queryIndex: number, tally: Tally, exact: boolean): void {
    // Plain loops, no callback per posting: the first search of a process runs this code cold.
    const segments = this.segments(term);
    let keyMatching = 0;
    let textMatching = 0;
    for (const { docs, keyCounts, textCounts } of segments) {
      for (let p = 0; p < docs.length; p++) {
        if (this.names[docs[p] as number] === undefined) continue;
        if (keyCounts[p]) keyMatching++;
        if (textCounts[p]) textMatching++;
      }
    }
    if (keyMatching + textMatching === 0) return;
    const total = this.live;
    const keyAverage = this.keyLengthSum / total || 1;
    const textAverage = this.textLengthSum / total || 1;
    const [keyIdf, textIdf] = [idf(keyMatching, total), idf(textMatching, total)];
    for (const { docs, keyCounts, textCounts } of segments) {
      for (let p = 0; p < docs.length; p++) {
        const at = docs[p] as number;
        if (this.names[at] === undefined) continue;
        const keyCount = keyCounts[p] as number;
        const textCount = textCounts[p] as number;
        let score = 0;
        if (keyCount) score += KEY_BOOST * bm25(keyCount, keyIdf, this.field(at, KEY_LENGTH), keyAverage);
        if (textCount) score += bm25(textCount, textIdf, this.field(at, TEXT_LENGTH), textAverage);
        if (tally.queryTerms[at] === 0) tally.touched.push(at);
        tally.score[at] = (tally.score[at] as number) + weight * score;
        tally.queryTerms[at] = (tally.queryTerms[at] as number) | (1 << queryIndex);
        if (exact) tally.exact[at] = (tally.exact[at] as number) | (1 << queryIndex);
      }
    }
  }

  /** Every indexed word that starts with `prefix`, itself included when indexed. */
  private withPrefix(prefix: string): string[] {
    const found: string[] = [];
    for (const sorted of [this.baseTerms, this.sortedNewTerms()]) {
      for (let i = lowerBound(sorted, prefix); i < sorted.length && (sorted[i] as string).startsWith(prefix); i++) found.push(sorted[i] as string);
    }
    return found;
  }

  /** The indexed words of the note at `at` that the query matched, exactly or by prefix. */
  private matchedTerms(at: number, queryTerms: string[], expansions: string[][]): string[] {
    const matched = new Set<string>();
    queryTerms.forEach((queryTerm, i) => {
      for (const term of [queryTerm, ...(expansions[i] ?? [])]) if (!matched.has(term) && this.holds(term, at)) matched.add(term);
    });
    return [...matched];
  }

  private holds(term: string, at: number): boolean {
    // Each segment's positions ascend (added notes take new, higher positions).
    return this.segments(term).some(({ docs }) => docs[lowerBound(docs, at)] === at);
  }
}
