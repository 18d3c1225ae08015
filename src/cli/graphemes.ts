// The line editor by grapheme (what a person sees as one character: 👋🏽, e + a combining accent): how far a key moves or deletes, and how many columns a line takes.
import type { Interface } from "node:readline";
import { stripVTControlCharacters } from "node:util";

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
/** Characters a terminal draws two columns wide: East Asian wide and full-width ones, and emoji. */
const WIDE = /^[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f000}-\u{1faff}\u{20000}-\u{3fffd}]/u;
const ZERO_WIDTH = /^[\p{M}\p{Cf}]/u;

/** The keys that move or delete one character, as the line editor receives them. */
export type EditKey = "left" | "right" | "backspace" | "delete";

/** How many times the line editor (one code point per key) must apply `key` for the cursor to cross one whole grapheme: 2 for 👋🏽 or e + U+0301, 1 for a plain letter, 0 at either end. */
export function codePointsToCross(line: string, cursor: number, key: EditKey): number {
  const backwards = key === "left" || key === "backspace";
  let before: string | undefined;
  for (const { segment, index } of segmenter.segment(line)) {
    if (backwards && index + segment.length === cursor) before = segment;
    if (!backwards && index === cursor) return [...segment].length;
  }
  return before === undefined ? 0 : [...before].length;
}

/** The columns one grapheme takes: 2 when its first character is wide (or it asks for emoji presentation), 0 for a lone mark, else 1. */
export function graphemeColumns(grapheme: string): number {
  if (WIDE.test(grapheme) || grapheme.includes("\ufe0f")) return 2;
  return ZERO_WIDTH.test(grapheme) ? 0 : 1;
}

/** Makes a readline interface measure its line by grapheme as the terminal draws it (Node counts 👋🏽 as four columns), replacing a private method; on a Node without it, nothing changes. */
export function measureByGrapheme(editor: Interface): void {
  let proto: object | null = Object.getPrototypeOf(editor);
  while (proto !== null) {
    const key = Object.getOwnPropertySymbols(proto).find((symbol) => symbol.description === "_getDisplayPos");
    if (key !== undefined) return void Object.defineProperty(editor, key, { value: displayPosition, configurable: true, writable: true });
    proto = Object.getPrototypeOf(proto);
  }
}

/** Where text ends on screen: rows down and the column, wrapping at `this.columns` as the terminal does (a wide grapheme never split). */
function displayPosition(this: { columns: number; tabSize?: number }, text: string): { cols: number; rows: number } {
  const width = this.columns;
  const tab = this.tabSize ?? 8;
  let offset = 0;
  let rows = 0;
  for (const { segment } of segmenter.segment(stripVTControlCharacters(text))) {
    if (segment === "\n") {
      rows += Math.ceil(offset / width) || 1;
      offset = 0;
    } else if (segment === "\t") offset += tab - (offset % tab);
    else {
      const columns = graphemeColumns(segment);
      if (columns === 2 && (offset + 1) % width === 0) offset++;
      offset += columns;
    }
  }
  const cols = offset % width;
  return { cols, rows: rows + (offset - cols) / width };
}
