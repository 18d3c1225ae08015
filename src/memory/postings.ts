// The note index's posting lists and the pure parts of its ranking (BM25+, top-k, sorted search); how text becomes terms, and the match's snippet.
/** Postings of one term, side by side: note positions (ascending) and the term's counts in each note's key and text. */
export type Segment<T extends ArrayLike<number>> = { docs: T; keyCounts: T; textCounts: T };

/** Every term's postings as flat data: terms sorted, the i-th term's `counts[i]` postings consecutive in the arrays. */
export type PostingData = { terms: string[]; counts: Uint32Array; docs: Uint32Array; keyCounts: Uint8Array; textCounts: Uint8Array };

// A word's count in one note is capped to fit a byte: BM25's count term is then within 0.5% of its limit.
const MAX_COUNT = 0xff;

/** Every term's postings: those loaded whole stay in flat arrays (no object per term for 10,000 notes), those added since by term. */
export class Postings {
  private baseTerms: readonly string[] = [];
  // The i-th base term's postings run from baseStarts[i] to baseStarts[i + 1].
  private baseStarts: Uint32Array = new Uint32Array(1);
  private baseDocs: Uint32Array = new Uint32Array(0);
  private baseKeyCounts: Uint8Array = new Uint8Array(0);
  private baseTextCounts: Uint8Array = new Uint8Array(0);
  private readonly added = new Map<string, Segment<number[]>>();
  /** The terms of `added` not in baseTerms. */
  private newTerms: string[] = [];
  private newTermsSorted = true;

  /** Takes `data` as the base, dropping what was added. */
  load(data: PostingData): void {
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

  /** Adds the posting of `term` in the note at position `at`, a position above every earlier one. */
  add(term: string, at: number, keyCount: number, textCount: number): void {
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

  /** The postings of `term`: those loaded whole, then those added since (each part absent when empty). */
  segments(term: string): Segment<ArrayLike<number>>[] {
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

  /** Every term that starts with `prefix`, itself included when it is one. */
  withPrefix(prefix: string): string[] {
    const found: string[] = [];
    for (const sorted of [this.baseTerms, this.sortedNewTerms()]) {
      for (let i = lowerBound(sorted, prefix); i < sorted.length && (sorted[i] as string).startsWith(prefix); i++) found.push(sorted[i] as string);
    }
    return found;
  }

  holds(term: string, at: number): boolean {
    // Each segment's positions ascend (added notes take new, higher positions).
    return this.segments(term).some(({ docs }) => docs[lowerBound(docs, at)] === at);
  }

  /** Every posting as flat data, positions mapped through `renumber` and those mapped below 0 (removed notes) dropped. */
  export(renumber: Int32Array): PostingData {
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
    return { terms, counts: Uint32Array.from(counts), docs: docs.slice(0, n), keyCounts: keyCounts.slice(0, n), textCounts: textCounts.slice(0, n) };
  }

  private baseIndexOf(term: string): number {
    const i = lowerBound(this.baseTerms, term);
    return this.baseTerms[i] === term ? i : -1;
  }

  private sortedNewTerms(): string[] {
    if (!this.newTermsSorted) this.newTerms.sort();
    this.newTermsSorted = true;
    return this.newTerms;
  }
}

// BM25+ as MiniSearch (which this index replaced) ranks.
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };

/** The inverse document frequency of a word `matching` of `total` notes hold: the same for every posting of the word. */
export function idf(matching: number, total: number): number {
  return Math.log(1 + (total - matching + 0.5) / (matching + 0.5));
}

/** One field's BM25+ score of a word `freq` times in a field of `length` words (`average` across notes). */
export function bm25(freq: number, wordIdf: number, length: number, average: number): number {
  return wordIdf * (BM25.d + (freq * (BM25.k + 1)) / (freq + BM25.k * (1 - BM25.b + (BM25.b * length) / average)));
}

/** Set bits of a 32-bit mask: how many query words a note matched (SWAR count: no loop, cold or hot). */
export function bitCount(n: number): number {
  let v = n - ((n >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** The `count` positions of highest score, best first; of equal scores, the lower position first. */
export function bestOf(positions: readonly number[], count: number, score: Float64Array): number[] {
  const ahead = (a: number, b: number): boolean => (score[a] as number) > (score[b] as number) || (score[a] === score[b] && a < b);
  const top: number[] = [];
  for (let i = 0; i < positions.length; i++) {
    const at = positions[i] as number;
    if (top.length >= count) {
      if (count <= 0 || !ahead(at, top[count - 1] as number)) continue;
      top.pop();
    }
    let slot = top.length;
    while (slot > 0 && ahead(at, top[slot - 1] as number)) slot--;
    top.splice(slot, 0, at);
  }
  return top;
}

/** First index of `sorted` (terms, or note positions) whose value is not below `value`. */
export function lowerBound<T extends string | number>(sorted: ArrayLike<T>, value: T): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as T) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The union of two sorted lists of distinct terms, sorted: V8's TimSort merges the two sorted runs in linear time. */
export function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

/** Separators between words: white space and punctuation, as MiniSearch's default tokenizer. */
const SEPARATORS = /[\n\r\p{Z}\p{P}]+/u;
const WORDS = /[^\n\r\p{Z}\p{P}]+/gu;
const COMBINING_MARKS = /\p{M}+/gu;
const ASCII = /^[\x00-\x7f]*$/;

// Characters of a snippet shown before its first match, and in all (before the "…" marks).
const SNIPPET_BEFORE_CHARS = 60;
const SNIPPET_CHARS = 240;

/** Splits text into words (the MiniSearch tokenizer). */
export function tokenize(text: string): string[] {
  return text.split(SEPARATORS).filter(Boolean);
}

/** The indexed form of a word: lower case without accents, so "Café" and "cafe" meet. */
export function processTerm(word: string): string {
  // Most words are plain ASCII, which has no accents to strip; this keeps indexing fast.
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize("NFKD").replace(COMBINING_MARKS, "").toLowerCase();
}

/** How often each index term occurs in `text` (its words tokenized and processed). */
export function countTerms(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of tokenize(text)) {
    const term = processTerm(word);
    if (term) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return counts;
}

/** The words a key contributes to the index: "project-alpha" reads as "project alpha". */
export function keyText(key: string): string {
  return key.replace(/[-_./]+/g, " ");
}

/** A window of the note around the first word whose indexed form is in `terms` (else its start), cut at word boundaries and marked with "…". */
export function makeSnippet(content: string, terms: ReadonlySet<string>): string {
  for (const match of content.matchAll(WORDS)) if (terms.has(processTerm(match[0]))) return snippetAt(content, match.index);
  return snippetAt(content, 0);
}

function snippetAt(content: string, at: number): string {
  let start = Math.max(0, at - SNIPPET_BEFORE_CHARS);
  if (start > 0) {
    const space = content.slice(start, at).search(/\s/);
    if (space >= 0) start += space + 1;
  }
  let end = Math.min(content.length, start + SNIPPET_CHARS);
  if (end < content.length) {
    const cut = content.slice(at, end).search(/\s\S*$/);
    if (cut > 0) end = at + cut;
  }
  const body = content.slice(start, end).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${body}${end < content.length ? "…" : ""}`;
}
