// How note text becomes search terms, and the snippet shown around the first match.

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
