// NoteIndex: the in-memory BM25+ index of the notes, in flat arrays that load from disk without rebuilding.
import type { FileStamp } from "./folder-tracker.js";
import { KEY_LENGTH, NOTE_FIELDS, TEXT_LENGTH, type IndexData } from "./index-file.js";
import { Postings, bestOf, bitCount, bm25, countTerms, idf, keyText, processTerm, tokenize } from "./postings.js";

/** One ranked note, with the indexed words that matched (for the snippet), before the store adds its snippet and time. */
export type IndexHit = { fileName: string; score: number; terms: string[] };

/** Characters of a note that are indexed; the rest of a very large file is not searchable. */
export const MAX_INDEXED_CHARS = 200_000;
/** How much more a word in the key counts than the same word in the body. */
const KEY_BOOST = 3;
/** Query words this long or longer also match longer words they start ("deploy" finds "deployment"). */
const PREFIX_MIN_CHARS = 4;
// The weight of a longer word a query word starts, as MiniSearch (which this index replaced) gives it.
const PREFIX_WEIGHT = 0.375;

/** What one query accumulates per note position; bit i of `queryTerms` set when the note matched query word i, of `exact` when verbatim. */
type Tally = { score: Float64Array; queryTerms: Uint32Array; exact: Uint32Array; touched: number[] };

/** True when the note (its key or its indexed text) holds every one of `terms` as the index reads it. */
export function holdsTerms(key: string, content: string, terms: readonly string[]): boolean {
  if (terms.length === 0) return false;
  const words = new Set([...countTerms(keyText(key)).keys(), ...countTerms(content.slice(0, MAX_INDEXED_CHARS)).keys()]);
  return terms.every((term) => words.has(term));
}

/** Notes by file name, BM25+ over key (boosted) and body: words ORed, 4+ letters also by prefix, no threshold; dead postings until `exportData`. */
export class NoteIndex {
  private names: (string | undefined)[] = [];
  // NOTE_FIELDS numbers per position; after a load, the loaded array itself until a note is added.
  private fields: Float64Array = new Float64Array(0);
  // File name → position, built at the first upsert or removal after a load: a search needs none.
  private positionsByName: Map<string, number> | undefined = new Map();
  private live = 0;
  private readonly postings = new Postings();
  private keyLengthSum = 0;
  private textLengthSum = 0;

  /** An index holding exactly `data` (already validated by whoever read it). */
  static fromData(data: IndexData): NoteIndex {
    const index = new NoteIndex();
    index.load(data);
    return index;
  }

  get size(): number {
    return this.live;
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
    for (const [term, count] of textCounts) this.postings.add(term, at, keyCounts.get(term) ?? 0, count);
    for (const [term, count] of keyCounts) if (!textCounts.has(term)) this.postings.add(term, at, count, 0);
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

  /** The best `limit` notes, best first; a query word found verbatim only outside them brings its best note in, in place of the lowest unprotected one. */
  search(query: string, limit: number): IndexHit[] {
    const queryTerms = tokenize(query).map(processTerm).filter(Boolean).slice(0, 32);
    const size = this.names.length;
    const tally: Tally = { score: new Float64Array(size), queryTerms: new Uint32Array(size), exact: new Uint32Array(size), touched: [] };
    const expansions = queryTerms.map((term) => (term.length < PREFIX_MIN_CHARS ? [] : this.postings.withPrefix(term)));
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

  /** The index as flat data, dead postings dropped and positions renumbered; the index itself is compacted to that form. */
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
    const data = { fileNames, noteFields, ...this.postings.export(renumber) };
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
    this.postings.load(data);
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

  /** Scores one query word, exactly and by the longer words it starts. */
  private scoreTerm(queryTerm: string, expansion: string[], queryIndex: number, tally: Tally): void {
    this.scorePostings(queryTerm, 1, queryIndex, tally, true);
    for (const term of expansion) {
      const distance = term.length - queryTerm.length;
      if (distance > 0) this.scorePostings(term, (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * distance), queryIndex, tally, false);
    }
  }

  private scorePostings(term: string, weight: number, queryIndex: number, tally: Tally, exact: boolean): void {
    // Plain loops, no callback per posting: the first search of a process runs this code cold.
    const segments = this.postings.segments(term);
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

  /** The indexed words of the note at `at` that the query matched, exactly or by prefix. */
  private matchedTerms(at: number, queryTerms: string[], expansions: string[][]): string[] {
    const matched = new Set<string>();
    queryTerms.forEach((queryTerm, i) => {
      for (const term of [queryTerm, ...(expansions[i] ?? [])]) if (!matched.has(term) && this.postings.holds(term, at)) matched.add(term);
    });
    return [...matched];
  }
}
