// The keys of a terminal sorted before the line editor sees them: pastes, Ctrl-C, Esc, Shift-Enter, type-ahead during a turn, single-key answers.
import { PassThrough } from "node:stream";
import { StringDecoder } from "node:string_decoder";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
/** What terminals send for Shift-Enter (or Alt-Enter): ESC CR, kitty's CSI u, xterm's modifyOtherKeys. */
const SOFT_ENTER = ["\x1b\r", "\x1b\n", "\x1b[13;2u", "\x1b[27;2;13~"];
const CTRL_C = "\x03";
const CTRL_D = "\x04";
const CTRL_U = "\x15";
const ESC = "\x1b";
const BACKSPACE = /^[\x7f\b]$/;
/** Characters a paste may keep; other controls (an escape sequence inside a pasted log) are dropped. */
const PASTE_JUNK = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

/** What happens to keys at a given moment. */
export type KeyMode = "prompt" | "busy" | "answer";

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
  /** The key pressed at a single-key question ("\x03" for Ctrl-C, "\x04" for Ctrl-D). */
  answer(key: string): void;
}

/** The stream the line editor reads, the mode switch, and the text typed ahead that has no Enter yet. */
export interface TerminalKeys {
  /** What readline reads: a TTY-like stream carrying the keys meant for it. */
  editorInput: PassThrough & { isTTY: true; setRawMode(raw: boolean): unknown };
  setMode(mode: KeyMode): void;
  /** Takes the text typed during a turn after its last Enter (it goes onto the next prompt). */
  takeTypeAhead(): string;
  /** Turns bracketed paste off and stops reading. */
  close(): void;
}

/**
 * Reads a raw terminal and routes each chunk: at the prompt everything goes to the line
 * editor except Ctrl-C, Esc, Shift-Enter and pastes; while a turn runs keys are typed
 * ahead (Enter queues the line; Ctrl-C and Esc interrupt); at a single-key question the
 * first key is the answer. Asks the terminal for bracketed paste; without it, a chunk
 * holding a line break followed by more text is taken as a paste (no one types that fast).
 */
export function readTerminalKeys(
  stdin: NodeJS.ReadableStream & { setRawMode?: (raw: boolean) => unknown },
  out: { write(text: string): unknown },
  handlers: KeyHandlers,
): TerminalKeys {
  const editorInput = Object.assign(new PassThrough(), {
    isTTY: true as const,
    setRawMode: (raw: boolean) => stdin.setRawMode?.(raw),
  });
  const decoder = new StringDecoder("utf8");
  let mode: KeyMode = "prompt";
  let pasting: string | undefined;
  let typeAhead = "";

  const onBusyKeys = (chunk: string): void => {
    if (chunk === ESC) return handlers.interrupt("esc");
    if (chunk.startsWith(ESC)) return; // arrows and other sequences have no meaning in type-ahead
    for (const char of chunk) {
      if (char === CTRL_C) handlers.interrupt("ctrl-c");
      else if (char === "\r" || char === "\n") {
        if (typeAhead.trim()) handlers.queued(typeAhead);
        typeAhead = "";
      } else if (BACKSPACE.test(char)) typeAhead = [...typeAhead].slice(0, -1).join("");
      else if (char === CTRL_U) typeAhead = "";
      else if (char >= " ") typeAhead += char;
    }
  };
  const onPromptKeys = (chunk: string): void => {
    if (chunk === ESC) return;
    const soft = firstSoftEnter(chunk);
    if (soft) {
      if (soft.index > 0) onPromptKeys(chunk.slice(0, soft.index));
      handlers.softEnter();
      const rest = chunk.slice(soft.index + soft.length);
      return rest ? route(rest) : undefined;
    }
    const lineBreak = chunk.search(/[\r\n]/);
    if (lineBreak >= 0 && chunk.slice(lineBreak).replace(/^(\r\n|\r|\n)/, "").length > 0) return deliverPaste(chunk);
    const interrupt = chunk.indexOf(CTRL_C);
    if (interrupt < 0) return void editorInput.write(chunk);
    if (interrupt > 0) editorInput.write(chunk.slice(0, interrupt));
    handlers.interrupt("ctrl-c");
    if (chunk.length > interrupt + 1) route(chunk.slice(interrupt + 1));
  };
  const route = (chunk: string): void => {
    if (mode === "answer") return handlers.answer(chunk === ESC ? CTRL_C : chunk[0]!.toLowerCase());
    if (mode === "busy") return onBusyKeys(chunk);
    onPromptKeys(chunk);
  };
  const onData = (data: Buffer | string): void => {
    let text = typeof data === "string" ? data : decoder.write(data);
    while (text) {
      if (pasting !== undefined) {
        const end = text.indexOf(PASTE_END);
        pasting += end < 0 ? text : text.slice(0, end);
        if (end < 0) return;
        const pasted = pasting;
        pasting = undefined;
        text = text.slice(end + PASTE_END.length);
        deliverPaste(pasted);
        continue;
      }
      const start = text.indexOf(PASTE_START);
      if (start < 0) return route(text);
      if (start > 0) route(text.slice(0, start));
      pasting = "";
      text = text.slice(start + PASTE_START.length);
    }
  };
  const deliverPaste = (raw: string): void => {
    const text = raw.replace(/\r\n?/g, "\n").replace(PASTE_JUNK, "");
    if (mode === "busy") return onBusyKeys(text.replace(/\n/g, " "));
    if (mode === "answer") return;
    if (text.includes("\n")) handlers.paste(text);
    else editorInput.write(text);
  };

  stdin.on("data", onData);
  out.write("\x1b[?2004h");
  return {
    editorInput,
    setMode: (next) => {
      mode = next;
    },
    takeTypeAhead: () => {
      const text = typeAhead;
      typeAhead = "";
      return text;
    },
    close: () => {
      stdin.off("data", onData);
      out.write("\x1b[?2004l");
      editorInput.end();
    },
  };
}

/** Where the first Shift-Enter sequence of a chunk starts, and its length. */
function firstSoftEnter(chunk: string): { index: number; length: number } | undefined {
  let first: { index: number; length: number } | undefined;
  for (const sequence of SOFT_ENTER) {
    const index = chunk.indexOf(sequence);
    if (index >= 0 && (!first || index < first.index)) first = { index, length: sequence.length };
  }
  return first;
}

export { CTRL_C, CTRL_D };
