// Bash brace expansion (`a{b,c}d`, `{1..10..2}`, `{a..e}`), bounded: the words a word becomes.

/** Words one brace expansion may produce before the gate stops expanding and calls the word unsafe. */
export const MAX_BRACE_WORDS = 4096;

/** A brace group found in a word: the text around it, and its alternatives or the words of its sequence (null when too many). */
interface BraceSplit { pre: string; post: string; alternatives: string[] | null; sequence: string[] | null }

/**
 * The words bash makes of `text`, in its order; null past MAX_BRACE_WORDS, known before more are made. Quoted braces are expanded
 * too: more words, never fewer.
 */
export function expandBraces(text: string): string[] | null {
  const split = findBrace(text);
  if (split === null) return [text];
  const middle: string[] = [];
  for (const alternative of split.alternatives ?? [null]) {
    const words = alternative === null ? split.sequence : expandBraces(alternative);
    if (words === null || middle.push(...words) > MAX_BRACE_WORDS) return null;
  }
  const tails = expandBraces(split.post);
  if (tails === null || middle.length * tails.length > MAX_BRACE_WORDS) return null;
  return middle.flatMap((m) => tails.map((t) => split.pre + m + t));
}

/** The first `{` with a matching `}` around alternatives (a comma outside inner braces) or a sequence. */
function findBrace(text: string): BraceSplit | null {
  for (let open = text.indexOf("{"); open !== -1; open = text.indexOf("{", open + 1)) {
    const cuts = [open];
    let depth = 0;
    let close = -1;
    for (let i = open; i < text.length && close === -1; i++) {
      if (text[i] === "{") depth++;
      else if (text[i] === "}" && --depth === 0) close = i;
      else if (text[i] === "," && depth === 1) cuts.push(i);
    }
    if (close === -1) continue;
    const around = { pre: text.slice(0, open), post: text.slice(close + 1) };
    cuts.push(close);
    if (cuts.length > 2) return { ...around, alternatives: cuts.slice(1).map((cut, i) => text.slice((cuts[i] as number) + 1, cut)), sequence: null };
    const sequence = parseSequence(text.slice(open + 1, close));
    if (sequence !== undefined) return { ...around, alternatives: null, sequence };
  }
  return null;
}

const INT_SEQUENCE = /^([-+]?[0-9]+)\.\.([-+]?[0-9]+)(?:\.\.([-+]?[0-9]+))?$/;
const CHAR_SEQUENCE = /^([^0-9])\.\.([^0-9])(?:\.\.([-+]?[0-9]+))?$/su;

/** The words of `{1..9..2}` or `{a..e}`: null when more than MAX_BRACE_WORDS, undefined when `inner` is no sequence. */
function parseSequence(inner: string): string[] | null | undefined {
  const ints = INT_SEQUENCE.exec(inner);
  const match = ints ?? CHAR_SEQUENCE.exec(inner);
  if (match === null) return undefined;
  const [, first = "", last = "", by] = match;
  const [from, to] = ints !== null ? [Number(first), Number(last)] : [first.codePointAt(0) as number, last.codePointAt(0) as number];
  const step = (Math.abs(Number(by ?? 1)) || 1) * (to >= from ? 1 : -1);
  const length = Math.floor(Math.abs(to - from) / Math.abs(step)) + 1;
  const width = /^[-+]?0[0-9]/.test(first) || /^[-+]?0[0-9]/.test(last) ? Math.max(first.length, last.length) : 0;
  const padded = (n: number): string => `${n < 0 ? "-" : ""}${String(Math.abs(n)).padStart(n < 0 ? width - 1 : width, "0")}`;
  const word = (n: number): string => (ints === null ? String.fromCodePoint(n) : padded(n));
  return length > MAX_BRACE_WORDS ? null : Array.from({ length }, (_, i) => word(from + step * i));
}
