// The keys of a terminal sorted before the line editor sees them (pastes, Ctrl-C, Esc, Shift-Enter, type-ahead during a turn, single-key answers), and
// the editor by grapheme (what a person sees as one character: 👋🏽, e + a combining accent): how far a key moves or deletes, how many columns a line takes.
import type { Interface } from "node:readline";
import { PassThrough } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { stripVTControlCharacters } from "node:util";

export const CTRL_C = "\x03";
export const CTRL_D = "\x04";
const CTRL_U = "\x15";
const ESC = "\x1b";
const BACKSPACE = /^[\x7f\b]$/;
const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** What terminals send for Shift-Enter (or Alt-Enter): ESC CR (or LF), kitty's CSI u, xterm's modifyOtherKeys. */
const SOFT_ENTER = /\x1b[\r\n]|\x1b\[13;2u|\x1b\[27;2;13~/;
/** The keys that move or delete one character at the prompt: arrows, Ctrl-B/F, Backspace, Delete, Ctrl-D. */
const EDIT_KEYS: Readonly<Record<string, EditKey>> = {
  "\x1b[D": "left", "\x1bOD": "left", "\x02": "left", "\x1b[C": "right", "\x1bOC": "right", "\x06": "right",
  "\x7f": "backspace", "\b": "backspace", "\x1b[3~": "delete", "\x04": "delete",
};
/** Characters a paste may keep; other controls (an escape sequence inside a pasted log) are dropped. */
const PASTE_JUNK = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** Callbacks for the keys the line editor must not see. */
export interface KeyHandlers {
  /** Ctrl-C, or Esc while a turn runs. */
  interrupt(key: "ctrl-c" | "esc"): void;
  /** Shift-Enter at the prompt: the current line continues the message. */
  softEnter(): void;
  /** A paste at the prompt (bracketed, or several lines arriving at once), line breaks as "\n". */
  paste(text: string): void;
  /** A line typed ahead while a turn runs, when Enter is pressed. */
  queued(line: string): void;
  /** The key pressed at a single-key question (CTRL_C for Ctrl-C or Esc). */
  answer(key: string): void;
  /** How many times the line editor must get `key` to cross one whole character as a person sees it (at least 1 is sent). */
  repeatFor(key: EditKey): number;
}

/**
 * Routes a raw terminal's chunks by `mode`: `prompt`, to the line editor (`editorInput`) but Ctrl-C, Esc, Shift-Enter and pastes; `busy`, typed ahead
 * (Enter queues, Ctrl-C/Esc interrupt); `answer`, the first key. Without bracketed paste, a line break then more text in one chunk is a paste.
 */
export class TerminalKeys {
  /** What readline reads: a TTY-like stream carrying the keys meant for it. */
  readonly editorInput: PassThrough & { isTTY: true; setRawMode(raw: boolean): unknown };
  mode: "prompt" | "busy" | "answer" = "prompt";
  private readonly decoder = new StringDecoder("utf8");
  private pasting: string | undefined;
  private typeAhead = "";
  private readonly onData = (data: Buffer | string): void => this.receive(typeof data === "string" ? data : this.decoder.write(data));

  constructor(
    private readonly stdin: NodeJS.ReadableStream & { setRawMode?: (raw: boolean) => unknown },
    private readonly out: { write(text: string): unknown },
    private readonly handlers: KeyHandlers,
  ) {
    this.editorInput = Object.assign(new PassThrough(), { isTTY: true as const, setRawMode: (raw: boolean) => stdin.setRawMode?.(raw) });
    stdin.on("data", this.onData);
    out.write("\x1b[?2004h");
  }

  /** Takes the text typed during a turn after its last Enter (it goes onto the next prompt). */
  takeTypeAhead(): string {
    const text = this.typeAhead;
    this.typeAhead = "";
    return text;
  }

  /** Turns bracketed paste off and stops reading. */
  close(): void {
    this.stdin.off("data", this.onData);
    this.out.write("\x1b[?2004l");
    this.editorInput.end();
  }

  /** Takes bracketed pastes out of the stream (one may span chunks); routes the rest. */
  private receive(text: string): void {
    while (text) {
      if (this.pasting !== undefined) {
        const end = text.indexOf(PASTE_END);
        this.pasting += end < 0 ? text : text.slice(0, end);
        if (end < 0) return;
        const pasted = this.pasting;
        this.pasting = undefined;
        text = text.slice(end + PASTE_END.length);
        this.paste(pasted);
        continue;
      }
      const start = text.indexOf(PASTE_START);
      if (start < 0) return this.route(text);
      if (start > 0) this.route(text.slice(0, start));
      this.pasting = "";
      text = text.slice(start + PASTE_START.length);
    }
  }

  private route(chunk: string): void {
    if (this.mode === "answer") return this.handlers.answer(chunk === ESC ? CTRL_C : chunk[0]!.toLowerCase());
    if (this.mode === "busy") return this.busyKeys(chunk);
    this.promptKeys(chunk);
  }

  private busyKeys(chunk: string): void {
    if (chunk === ESC) return this.handlers.interrupt("esc");
    if (chunk.startsWith(ESC)) return; // arrows and other sequences have no meaning in type-ahead
    for (const char of chunk) {
      if (char === CTRL_C) this.handlers.interrupt("ctrl-c");
      else if (char === "\r" || char === "\n") {
        if (this.typeAhead.trim()) this.handlers.queued(this.typeAhead);
        this.typeAhead = "";
      } else if (BACKSPACE.test(char)) this.typeAhead = [...this.typeAhead].slice(0, -1).join("");
      else if (char === CTRL_U) this.typeAhead = "";
      else if (char >= " ") this.typeAhead += char;
    }
  }

  private promptKeys(chunk: string): void {
    if (chunk === ESC) return;
    const edit = EDIT_KEYS[chunk];
    if (edit !== undefined) return void this.editorInput.write(chunk.repeat(Math.max(1, this.handlers.repeatFor(edit))));
    const soft = SOFT_ENTER.exec(chunk);
    if (soft) {
      if (soft.index > 0) this.promptKeys(chunk.slice(0, soft.index));
      this.handlers.softEnter();
      const rest = chunk.slice(soft.index + soft[0].length);
      return rest ? this.route(rest) : undefined;
    }
    const lineBreak = chunk.search(/[\r\n]/);
    if (lineBreak >= 0 && chunk.slice(lineBreak).replace(/^(\r\n|\r|\n)/, "").length > 0) return this.paste(chunk);
    const interrupt = chunk.indexOf(CTRL_C);
    if (interrupt < 0) return void this.editorInput.write(chunk);
    if (interrupt > 0) this.editorInput.write(chunk.slice(0, interrupt));
    this.handlers.interrupt("ctrl-c");
    if (chunk.length > interrupt + 1) this.route(chunk.slice(interrupt + 1));
  }

  private paste(raw: string): void {
    const text = raw.replace(/\r\n?/g, "\n").replace(PASTE_JUNK, "");
    if (this.mode === "busy") return this.busyKeys(text.replace(/\n/g, " "));
    if (this.mode === "answer") return;
    if (text.includes("\n")) this.handlers.paste(text);
    else this.editorInput.write(text);
  }
}

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
/** Characters a terminal draws two columns wide: East Asian wide and full-width ones, and emoji. */
const WIDE = /^[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{1f000}-\u{1faff}\u{20000}-\u{3fffd}]/u;
const ZERO_WIDTH = /^[\p{M}\p{Cf}]/u;

/** The keys that move or delete one character, as the line editor receives them. */
type EditKey = "left" | "right" | "backspace" | "delete";

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
function graphemeColumns(grapheme: string): number {
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
