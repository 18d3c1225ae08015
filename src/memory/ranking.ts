// The pure parts of the index's ranking: BM25+ scoring, top-k selection, and search in sorted term lists.

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
