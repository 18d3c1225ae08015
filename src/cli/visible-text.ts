// Text from the model made safe for a terminal: every character a terminal would act on, or that reorders or hides text, shown as a visible escape.

/**
 * What a terminal must never receive from the model: controls and DEL (`\p{Cc}`: escape sequences, CR, the 8-bit CSI), format characters (`\p{Cf}`:
 * bidi, zero-width, tags), line and paragraph separators, lone surrogates, blank Hangul fillers; one at a time, so a sequence split across deltas is
 * shown, never run.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u115f\u1160\u3164\uffa0]/gu;
const NAMED: Record<string, string> = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\p{Extended_Pictographic}\u{20000}-\u{3fffd}]/u;
const ZERO = /\p{M}/u;

/** A run of text as shown: plain, or one escaped character (never split when clipping or wrapping). */
export type VisiblePiece = { text: string; escaped: boolean };

/** How pieces are painted: `mark` for escapes (dim on a color terminal), `plain` for the rest. */
export type VisibleStyle = { mark?: (text: string) => string; plain?: (text: string) => string };

/** The visible form of one unsafe character: `\x1b`, `\x9b`, `\u202e`, `\u{e0041}`. */
function escapeChar(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  return NAMED[char] ?? (code < 0x100 ? `\\x${hex.padStart(2, "0")}` : code <= 0xffff ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`);
}

/** What a renderer's output may hold that its input did not (a character reference Markdown decoded, `&#x202e;`), escaped; ESC, newline and tab are its own styling (its input was made visible). */
export function escapeDecodedCharacters(text: string): string {
  return text.replace(UNSAFE, (char) => (char === "\x1b" || char === "\n" || char === "\t" ? char : escapeChar(char)));
}

/** Text as plain runs and escaped characters; `keepLineBreaks` keeps newline and tab as they are (replies, multi-line messages). */
export function visiblePieces(text: string, opts: { keepLineBreaks?: boolean } = {}): VisiblePiece[] {
  const pieces: VisiblePiece[] = [];
  let last = 0;
  for (const match of text.matchAll(UNSAFE)) {
    const char = match[0];
    if (opts.keepLineBreaks && (char === "\n" || char === "\t")) continue;
    if (match.index > last) pieces.push({ text: text.slice(last, match.index), escaped: false });
    pieces.push({ text: escapeChar(char), escaped: true });
    last = match.index + char.length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last), escaped: false });
  return pieces;
}

/** Pieces joined for the terminal, each painted by its kind. */
export function paintPieces(pieces: readonly VisiblePiece[], { mark = (t: string) => t, plain = (t: string) => t }: VisibleStyle = {}): string {
  return pieces.map((p) => (p.escaped ? mark(p.text) : plain(p.text))).join("");
}

/** The form in which any text from the model (or quoting it) is written to a terminal; keeps no state, so deltas go one by one. */
export function visibleText(text: string, opts: VisibleStyle & { keepLineBreaks?: boolean } = {}): string {
  return paintPieces(visiblePieces(text, opts), opts);
}

/** One line of at most `max` columns: blanks (space, tab, CR, LF) collapsed, the rest escaped; when it does not fit, as many pieces as fit in `max - 1` and `…`, never an escape cut in half. */
export function visibleLine(text: string, max: number, style: VisibleStyle = {}): string {
  const pieces = visiblePieces(text.replace(/[ \t\r\n]+/g, " ").trim());
  if (pieces.reduce((sum, p) => sum + columns(p.text), 0) <= max) return paintPieces(pieces, style);
  const out: VisiblePiece[] = [];
  let room = Math.max(0, max - 1);
  for (const piece of pieces) {
    const width = columns(piece.text);
    if (width > room) {
      if (!piece.escaped && room > 0) out.push({ text: takeColumns(piece.text, room), escaped: false });
      break;
    }
    out.push(piece);
    room -= width;
  }
  return paintPieces([...out, { text: "…", escaped: false }], style);
}

/** Pieces hard-wrapped into lines of at most `width` columns (at least 1), never cutting an escape nor dropping a character. */
export function wrapPieces(pieces: readonly VisiblePiece[], width: number): VisiblePiece[][] {
  const limit = Math.max(1, width);
  const lines: VisiblePiece[][] = [[]];
  let used = 0;
  const push = (piece: VisiblePiece, w: number): void => {
    if (used + w > limit && used > 0) {
      lines.push([]);
      used = 0;
    }
    const line = lines.at(-1)!;
    const prev = line.at(-1);
    if (prev && !prev.escaped && !piece.escaped) prev.text += piece.text;
    else line.push({ ...piece });
    used += w;
  };
  for (const piece of pieces) {
    if (piece.escaped) push(piece, columns(piece.text));
    else for (const char of piece.text) push({ text: char, escaped: false }, charColumns(char));
  }
  return lines;
}

/** Columns the text takes on a terminal: wide East Asian characters and emoji 2, combining marks 0. */
export function columns(text: string): number {
  let total = 0;
  for (const char of text) total += charColumns(char);
  return total;
}

function charColumns(char: string): number {
  if (ZERO.test(char)) return 0;
  return WIDE.test(char) && char.codePointAt(0)! > 0xff ? 2 : 1;
}

function takeColumns(text: string, max: number): string {
  let out = "";
  let used = 0;
  for (const char of text) {
    used += charColumns(char);
    if (used > max) break;
    out += char;
  }
  return out;
}

/** A final reply written to `stream`: escaped (line breaks kept) on a terminal; exact in a pipe or a file, where a script reads it as data. */
export function visibleReply(text: string, stream: { isTTY?: boolean }): string {
  return stream.isTTY === true ? visibleText(text, { keepLineBreaks: true }) : text;
}

/** A value as one line of JSON, safe on a terminal and exact in a pipe: every character visible-text would escape (all inside strings) is a `\uXXXX` escape, read back as the same character. */
export function visibleJson(value: unknown): string {
  const json = JSON.stringify(value) ?? "null";
  return json.replace(UNSAFE, (char) => [...Array(char.length).keys()].map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`).join(""));
}
