// Bash brace expansion (`a{b,c}d`, `{1..10..2}`, `{a..e}`), bounded: how many words a word becomes, and which.

/** Words one brace expansion may produce before the gate stops expanding and calls the word unsafe. */
export const MAX_BRACE_WORDS = 4096;

interface BraceSplit { pre: string; alternatives: string[] | null; sequence: string[] | null; sequenceLength: number; post: string }

/** How many words bash makes of `text` (1 without braces), counted without making them and capped above MAX_BRACE_WORDS. */
export function braceWordCount(text: string): number {
  const split = findBrace(text);
  if (split === null) return 1;
  let middle = 0;
  if (split.alternatives === null) middle = split.sequenceLength;
  else for (const alternative of split.alternatives) middle = Math.min(middle + braceWordCount(alternative), MAX_BRACE_WORDS + 1);
  if (middle > MAX_BRACE_WORDS) return MAX_BRACE_WORDS + 1;
  return Math.min(middle * braceWordCount(split.post), MAX_BRACE_WORDS + 1);
}

/** The words bash makes of `text`, in its order; null past MAX_BRACE_WORDS. Quoted braces are expanded too: more words, never fewer. */
export function expandBraces(text: string): string[] | null {
  return braceWordCount(text) > MAX_BRACE_WORDS ? null : expand(text);
}

function expand(text: string): string[] {
  const split = findBrace(text);
  if (split === null) return [text];
  const middle = split.alternatives === null ? (split.sequence ?? []) : split.alternatives.flatMap(expand);
  const tails = expand(split.post);
  return middle.flatMap((m) => tails.map((t) => split.pre + m + t));
}

function findBrace(text: string): BraceSplit | null {
  for (let open = text.indexOf("{"); open !== -1; open = text.indexOf("{", open + 1)) {
    const close = matchingClose(text, open);
    if (close === -1) continue;
    const inner = text.slice(open + 1, close);
    const pre = text.slice(0, open);
    const post = text.slice(close + 1);
    const alternatives = splitTopLevel(inner);
    if (alternatives.length > 1) return { pre, alternatives, sequence: null, sequenceLength: 0, post };
    const sequence = parseSequence(inner);
    if (sequence !== null) return { pre, alternatives: null, ...sequence, post };
  }
  return null;
}

function matchingClose(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "," && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

const INT_SEQUENCE = /^([-+]?[0-9]+)\.\.([-+]?[0-9]+)(?:\.\.([-+]?[0-9]+))?$/;
const CHAR_SEQUENCE = /^([^0-9])\.\.([^0-9])(?:\.\.([-+]?[0-9]+))?$/su;

function parseSequence(inner: string): { sequence: string[] | null; sequenceLength: number } | null {
  const ints = INT_SEQUENCE.exec(inner);
  const match = ints ?? CHAR_SEQUENCE.exec(inner);
  if (match === null) return null;
  const [, first = "", last = "", by] = match;
  const [from, to] = ints !== null ? [Number(first), Number(last)] : [first.codePointAt(0) as number, last.codePointAt(0) as number];
  const step = (Math.abs(Number(by ?? 1)) || 1) * (to >= from ? 1 : -1);
  const length = Math.floor(Math.abs(to - from) / Math.abs(step)) + 1;
  const width = /^[-+]?0[0-9]/.test(first) || /^[-+]?0[0-9]/.test(last) ? Math.max(first.length, last.length) : 0;
  const padded = (n: number): string => `${n < 0 ? "-" : ""}${String(Math.abs(n)).padStart(n < 0 ? width - 1 : width, "0")}`;
  const word = (n: number): string => (ints === null ? String.fromCodePoint(n) : padded(n));
  return { sequence: length > MAX_BRACE_WORDS ? null : Array.from({ length }, (_, i) => word(from + step * i)), sequenceLength: length };
}
