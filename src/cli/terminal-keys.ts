// The keys of a terminal sorted before the line editor sees them: pastes, Ctrl-C, Esc, Shift-Enter, type-ahead during a turn, single-key answers.
import { PassThrough } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import type { EditKey } from "./graphemes.js";

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
