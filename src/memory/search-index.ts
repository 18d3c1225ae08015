// NoteIndex: the in-memory BM25 index of the notes (MiniSearch), with exact matches always kept.
import MiniSearch, { type SearchResult } from "minisearch";
import { keyText, processTerm, tokenize } from "./terms.js";

/** One ranked note, before the store adds its snippet and time. */
export interface IndexHit {
  fileName: string;
  key: string;
  score: number;
  /** The indexed words of the note that matched, for the snippet. */
  terms: string[];
}

/** Characters of a note that are indexed; the rest of a very large file is not searchable. */
export const MAX_INDEXED_CHARS = 200_000;
/** How much more a word in the key counts than the same word in the body. */
export const KEY_BOOST = 3;
/** Query words this long or longer also match longer words they start ("deploy" finds "deployment"). */
const PREFIX_MIN_CHARS = 4;

interface IndexedNote {
  id: string;
  key: string;
  text: string;
}

function uniqueTerms(query: string): string[] {
  return [...new Set(tokenize(query).map(processTerm).filter(Boolean))];
}

function hasExact(result: SearchResult, term: string): boolean {
  return Object.prototype.hasOwnProperty.call(result.match, term);
}

/**
 * Full-text index of notes keyed by file name. BM25+ over two fields, the key boosted.
 * No score threshold: every note matching a query word is a candidate, and `search`
 * guarantees that each query word found verbatim in some note is represented in the results.
 */
export class NoteIndex {
  private readonly keys = new Map<string, string>();
  private readonly mini = new MiniSearch<IndexedNote>({
    idField: "id",
    fields: ["key", "text"],
    storeFields: [],
    extractField: (note, field) => (field === "key" ? keyText(note.key) : field === "text" ? note.text : note.id),
    tokenize,
    processTerm,
    searchOptions: {
      boost: { key: KEY_BOOST },
      prefix: (term) => term.length >= PREFIX_MIN_CHARS,
      combineWith: "OR",
    },
  });

  /** Number of notes indexed. */
  get size(): number {
    return this.keys.size;
  }

  /** Adds a note or replaces its previous version. */
  upsert(fileName: string, key: string, content: string): void {
    this.remove(fileName);
    this.mini.add({ id: fileName, key, text: content.slice(0, MAX_INDEXED_CHARS) });
    this.keys.set(fileName, key);
  }

  /** Removes a note; unknown names are ignored. */
  remove(fileName: string): void {
    if (!this.keys.delete(fileName)) return;
    this.mini.discard(fileName);
  }

  /**
   * The best `limit` notes for the query, best first. When a query word occurs verbatim in
   * some note but in none of the top notes (outranked by notes rich in the other words), the
   * best note holding it takes the place of the lowest-ranked unprotected one.
   */
  search(query: string, limit: number): IndexHit[] {
    const results = this.mini.search(query);
    const top = results.slice(0, limit);
    const kept = new Set<SearchResult>();
    for (const term of uniqueTerms(query)) {
      if (top.some((result) => hasExact(result, term))) continue;
      const best = results.find((result) => hasExact(result, term));
      const slot = top.findLastIndex((result) => !kept.has(result));
      if (!best || slot < 0) continue;
      top[slot] = best;
      kept.add(best);
    }
    return top
      .sort((a, b) => b.score - a.score)
      .map((result) => ({
        fileName: String(result.id),
        key: this.keys.get(String(result.id)) ?? String(result.id),
        score: result.score,
        terms: Object.keys(result.match),
      }));
  }
}
