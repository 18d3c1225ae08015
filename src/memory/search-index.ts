// NoteIndex: the in-memory BM25+ index of the notes, in flat arrays that load from disk without rebuilding.
import type { FileStamp } from "./folder-tracker.js";
import { keyText, processTerm, tokenize } from "./terms.js";

/** One ranked note, before the store adds its snippet and time. */
export interface IndexHit {
  fileName: string;
  score: number;
  /** The indexed words of the note that matched, for the snippet. */
  terms: string[];
}

/** One note of an exported index; `stamp` is absent when it must not be trusted later. */
export interface IndexedDoc {
  fileName: string;
  keyLength: number;
  textLength: number;
  stamp: FileStamp | undefined;
}

/**
 * The whole index as flat data: terms sorted, and for the i-th term `counts[i]` postings,
 * consecutive in `docs` (ascending positions in `notes`) and `freqs` (key count × 65536 + text count).
 */
export interface IndexData {
  notes: IndexedDoc[];
  terms: string[];
  counts: Uint32Array;
  docs: Uint32Array;
  freqs: Uint32Array;
}

/** Characters of a note that are indexed; the rest of a very large file is not searchable. */
export const MAX_INDEXED_CHARS = 200_000;
/** How much more a word in the key counts than the same word in the body. */
export const KEY_BOOST = 3;
/** Query words this long or longer also match longer words they start ("deploy" finds "deployment"). */
const PREFIX_MIN_CHARS = 4;
// BM25+ as MiniSearch (which this index replaced) ranks: its parameters and its prefix weight.
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };
const PREFIX_WEIGHT = 0.375;
const MAX_FREQ = 0xffff;
// New words are kept apart from the sorted list until this many, then merged in.
const UNSORTED_MAX = 256;

/** A term's postings: a range of the shared base arrays, then those added since. */
interface Postings {
  start: number;
  end: number;
  docs: number[];
  freqs: number[];
}

/** What one query accumulates per note position. */
interface Tally {
  score: Float64Array;
  queryTerms: Uint32Array;
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

function bm25(freq: number, matching: number, total: number, length: number, average: number): number {
  const idf = Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
  return idf * (BM25.d + (freq * (BM25.k + 1)) / (freq + BM25.k * (1 - BM25.b + (BM25.b * length) / average)));
}

function bitCount(n: number): number {
  let count = 0;
  for (let v = n; v; v &= v - 1) count++;
  return count;
}

/** First index of `sorted` whose term is not below `term`. */
function lowerBound(sorted: readonly string[], term: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < term) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
  private keyLengths: number[] = [];
  private textLengths: number[] = [];
  private stamps: (FileStamp | undefined)[] = [];
  private readonly positions = new Map<string, number>();
  private readonly terms = new Map<string, Postings>();
  private sorted: string[] = [];
  private unsorted: string[] = [];
  private baseDocs: Uint32Array = new Uint32Array(0);
  private baseFreqs: Uint32Array = new Uint32Array(0);
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
    return this.positions.size;
  }

  /** Adds a note or replaces its previous version; `stamp` is kept for `exportData`. */
  upsert(fileName: string, key: string, content: string, stamp?: FileStamp): void {
    this.remove(fileName);
    const at = this.names.length;
    const keyCounts = countTerms(keyText(key));
    const textCounts = countTerms(content.slice(0, MAX_INDEXED_CHARS));
    this.names.push(fileName);
    this.keyLengths.push(keyCounts.size);
    this.textLengths.push(textCounts.size);
    this.stamps.push(stamp);
    this.positions.set(fileName, at);
    this.keyLengthSum += keyCounts.size;
    this.textLengthSum += textCounts.size;
    for (const [term, count] of textCounts) this.addPosting(term, at, Math.min(MAX_FREQ, keyCounts.get(term) ?? 0) * 0x10000 + Math.min(MAX_FREQ, count));
    for (const [term, count] of keyCounts) if (!textCounts.has(term)) this.addPosting(term, at, Math.min(MAX_FREQ, count) * 0x10000);
  }

  /** Removes a note; unknown names are ignored. */
  remove(fileName: string): void {
    const at = this.positions.get(fileName);
    if (at === undefined) return;
    this.positions.delete(fileName);
    this.names[at] = undefined;
    this.keyLengthSum -= this.keyLengths[at] ?? 0;
    this.textLengthSum -= this.textLengths[at] ?? 0;
  }

  /**
   * The best `limit` notes for the query, best first. When a query word occurs verbatim in
   * some note but in none of the top notes (outranked by notes rich in the other words), the
   * best note holding it takes the place of the lowest-ranked unprotected one.
   */
  search(query: string, limit: number): IndexHit[] {
    const queryTerms = tokenize(query).map(processTerm).filter(Boolean).slice(0, 32);
    const tally: Tally = { score: new Float64Array(this.names.length), queryTerms: new Uint32Array(this.names.length), touched: [] };
    const expansions = queryTerms.map((term) => (term.length < PREFIX_MIN_CHARS ? [] : this.withPrefix(term)));
    const exact = queryTerms.map((term, i) => this.scoreTerm(term, expansions[i] as string[], i, tally));
    const ranked = tally.touched.map((at) => ({ at, score: (tally.score[at] as number) * Math.max(1, bitCount(tally.queryTerms[at] as number)) }));
    ranked.sort((a, b) => b.score - a.score || a.at - b.at);
    const top = ranked.slice(0, limit);
    const kept = new Set<number>();
    for (const holders of exact) {
      if (holders.size === 0 || top.some((hit) => holders.has(hit.at))) continue;
      const best = ranked.find((hit) => holders.has(hit.at));
      const slot = top.findLastIndex((hit) => !kept.has(hit.at));
      if (!best || slot < 0) continue;
      top[slot] = best;
      kept.add(best.at);
    }
    return top
      .sort((a, b) => b.score - a.score || a.at - b.at)
      .map((hit) => ({ fileName: this.names[hit.at] as string, score: hit.score, terms: this.matchedTerms(hit.at, queryTerms, expansions) }));
  }

  /**
   * The index as flat data, dead postings dropped and positions renumbered; the index
   * itself is compacted to that form, so this also reclaims what replaced notes left.
   */
  exportData(): IndexData {
    this.mergeUnsorted();
    const renumber = new Int32Array(this.names.length).fill(-1);
    const notes: IndexedDoc[] = [];
    this.names.forEach((fileName, at) => {
      if (fileName === undefined) return;
      renumber[at] = notes.length;
      notes.push({ fileName, keyLength: this.keyLengths[at] ?? 0, textLength: this.textLengths[at] ?? 0, stamp: this.stamps[at] });
    });
    let total = 0;
    for (const postings of this.terms.values()) total += postings.end - postings.start + postings.docs.length;
    const docs = new Uint32Array(total);
    const freqs = new Uint32Array(total);
    const terms: string[] = [];
    const counts: number[] = [];
    let n = 0;
    for (const term of this.sorted) {
      const before = n;
      this.forEachPosting(term, (at, freq) => {
        const to = renumber[at] as number;
        if (to < 0) return;
        docs[n] = to;
        freqs[n++] = freq;
      });
      if (n > before) {
        terms.push(term);
        counts.push(n - before);
      }
    }
    const data = { notes, terms, counts: Uint32Array.from(counts), docs: docs.slice(0, n), freqs: freqs.slice(0, n) };
    this.load(data);
    return data;
  }

  private load(data: IndexData): void {
    this.names = data.notes.map((note) => note.fileName);
    this.keyLengths = data.notes.map((note) => note.keyLength);
    this.textLengths = data.notes.map((note) => note.textLength);
    this.stamps = data.notes.map((note) => note.stamp);
    this.positions.clear();
    this.names.forEach((name, at) => this.positions.set(name as string, at));
    this.keyLengthSum = this.keyLengths.reduce((a, b) => a + b, 0);
    this.textLengthSum = this.textLengths.reduce((a, b) => a + b, 0);
    this.terms.clear();
    let start = 0;
    data.terms.forEach((term, i) => {
      const end = start + (data.counts[i] as number);
      this.terms.set(term, { start, end, docs: [], freqs: [] });
      start = end;
    });
    this.sorted = [...data.terms];
    this.unsorted = [];
    this.baseDocs = data.docs;
    this.baseFreqs = data.freqs;
  }

  private addPosting(term: string, at: number, freq: number): void {
    let postings = this.terms.get(term);
    if (!postings) {
      postings = { start: 0, end: 0, docs: [], freqs: [] };
      this.terms.set(term, postings);
      this.unsorted.push(term);
    }
    postings.docs.push(at);
    postings.freqs.push(freq);
  }

  private forEachPosting(term: string, visit: (at: number, freq: number) => void): void {
    const postings = this.terms.get(term);
    if (!postings) return;
    for (let i = postings.start; i < postings.end; i++) visit(this.baseDocs[i] as number, this.baseFreqs[i] as number);
    for (let i = 0; i < postings.docs.length; i++) visit(postings.docs[i] as number, postings.freqs[i] as number);
  }

  /** Scores one query word, exactly and by the longer words it starts; returns the positions holding it verbatim. */
  private scoreTerm(queryTerm: string, expansion: string[], queryIndex: number, tally: Tally): Set<number> {
    const exact = new Set<number>();
    this.scorePostings(queryTerm, 1, queryIndex, tally, exact);
    for (const term of expansion) {
      const distance = term.length - queryTerm.length;
      if (distance > 0) this.scorePostings(term, (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), queryIndex, tally);
    }
    return exact;
  }

  private scorePostings(term: string, weight: number, queryIndex: number, tally: Tally, holders?: Set<number>): void {
    let keyMatching = 0;
    let textMatching = 0;
    this.forEachPosting(term, (at, freq) => {
      if (this.names[at] === undefined) return;
      if (freq >>> 16) keyMatching++;
      if (freq & MAX_FREQ) textMatching++;
    });
    if (keyMatching + textMatching === 0) return;
    const total = this.positions.size;
    const keyAverage = this.keyLengthSum / total || 1;
    const textAverage = this.textLengthSum / total || 1;
    this.forEachPosting(term, (at, freq) => {
      if (this.names[at] === undefined) return;
      const keyFreq = freq >>> 16;
      const textFreq = freq & MAX_FREQ;
      let score = 0;
      if (keyFreq) score += KEY_BOOST * bm25(keyFreq, keyMatching, total, this.keyLengths[at] as number, keyAverage);
      if (textFreq) score += bm25(textFreq, textMatching, total, this.textLengths[at] as number, textAverage);
      if (tally.queryTerms[at] === 0) tally.touched.push(at);
      tally.score[at] = (tally.score[at] as number) + weight * score;
      tally.queryTerms[at] = (tally.queryTerms[at] as number) | (1 << queryIndex);
      holders?.add(at);
    });
  }

  /** Every indexed word that starts with `prefix`, itself included when indexed. */
  private withPrefix(prefix: string): string[] {
    if (this.unsorted.length > UNSORTED_MAX) this.mergeUnsorted();
    const found = this.unsorted.filter((term) => term.startsWith(prefix));
    for (let i = lowerBound(this.sorted, prefix); i < this.sorted.length && (this.sorted[i] as string).startsWith(prefix); i++) {
      found.push(this.sorted[i] as string);
    }
    return found;
  }

  private mergeUnsorted(): void {
    if (this.unsorted.length === 0) return;
    this.sorted = [...this.sorted, ...this.unsorted].sort();
    this.unsorted = [];
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
    const postings = this.terms.get(term);
    if (!postings) return false;
    let lo = postings.start;
    let hi = postings.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.baseDocs[mid] as number) < at) lo = mid + 1;
      else hi = mid;
    }
    return (lo < postings.end && this.baseDocs[lo] === at) || postings.docs.includes(at);
  }
}
