// Messages from the terminal or a pipe: a line editor with history kept in the workspace, multi-line messages, pastes, type-ahead and single-key answers.
import { appendFile } from "node:fs/promises";
import { createInterface, type Interface } from "node:readline";
import type { CliIo } from "./io.js";
import { CTRL_D, readTerminalKeys, type TerminalKeys } from "./terminal-keys.js";
import { readRegularText } from "../fs/regular-file.js";

export const HISTORY_FILE = ".history";
const HISTORY_SIZE = 500;
/** The prompt of the second and later lines of a message (after `\` or Shift-Enter). */
export const CONTINUATION_PROMPT = "… ";
const PASTE_TOKEN = /\[Pasted text #(\d+) \+\d+ lines\]/g;

export interface LineInput {
  readonly interactive: boolean;
  /**
   * The next message, or undefined at end of input (Ctrl-D, end of the pipe). On a terminal a
   * message may span lines: a line ending in `\`, Shift-Enter, or a paste of several lines.
   */
  next(prompt: string): Promise<string | undefined>;
  /** Asks a single-key question (terminal only): the key pressed, lower-cased; "\x03" for Ctrl-C or Esc, "\x04" for Ctrl-D or end of input. */
  askKey(question: string): Promise<string>;
  /** Called on Ctrl-C at an empty prompt, and on Ctrl-C or Esc while a turn runs (terminal only). */
  onInterrupt(handler: (key: "ctrl-c" | "esc") => void): void;
  /**
   * Called with each line typed while a turn runs (terminal only): true when the handler took it
   * (a steering message, a command run at once), false to queue it as the next message.
   */
  onTypedAhead(handler: (line: string) => boolean): void;
  /** A turn runs (true) or ended (false): meanwhile keys are typed ahead, and Enter queues the line. Busy from each message read until the next prompt. */
  setBusy(busy: boolean): void;
  /** Appends a message to the history file. */
  remember(line: string): Promise<void>;
  /**
   * Prints a line that arrived on its own (a warning from a server that connects in the background):
   * while a terminal shows the prompt, above it, with the prompt and what was typed drawn again;
   * otherwise on stderr as it is.
   */
  notice(text: string): void;
  close(): void;
}

/** Opens stdin as messages. On a TTY a line editor with history, pastes and type-ahead; on a pipe, one message per line as it comes. */
export async function openLineInput(io: CliIo, historyPath: string): Promise<LineInput> {
  const interactive = io.stdin.isTTY === true;
  const history = interactive ? await loadHistory(historyPath) : [];
  const state = { interrupt: (_key: "ctrl-c" | "esc"): void => {}, typedHandler: (_line: string): boolean => false };
  const composer = createComposer();
  let answer: ((key: string) => void) | undefined;
  let keys: TerminalKeys | undefined;
  if (interactive) {
    keys = readTerminalKeys(io.stdin, io.stdout, {
      interrupt: (key) => {
        if (busy) return state.interrupt(key);
        if (clearLine()) return;
        state.interrupt(key);
        if (!lines.closed()) editor.prompt();
      },
      softEnter: () => {
        composer.soft = true;
        keys!.editorInput.write("\r");
      },
      paste: (text) => keys!.editorInput.write(composer.pasted(text)),
      queued: (line) => {
        if (!state.typedHandler(line)) typedAhead.push(line);
      },
      answer: (key) => answer?.(key),
    });
  }
  const editor: Interface = createInterface({
    input: keys?.editorInput ?? io.stdin,
    output: io.stdout,
    terminal: interactive,
    history,
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  const lines = createLineQueue();
  const typedAhead: string[] = [];
  let busy = false;
  let prompt = "";
  const setBusy = (on: boolean): void => {
    busy = on;
    keys?.setMode(on ? "busy" : "prompt");
  };

  /** Ctrl-C at the prompt: empties the line (and the message being composed); false when there was nothing to clear. */
  const clearLine = (): boolean => {
    const composing = composer.parts.length > 0;
    if (!editor.line && !composing) return false;
    composer.reset();
    editor.write(null, { ctrl: true, name: "e" });
    editor.write(null, { ctrl: true, name: "u" });
    if (composing) {
      io.stdout.write("\n");
      editor.setPrompt(prompt);
      editor.prompt();
    }
    return true;
  };
  editor.on("line", (line) => {
    if (!interactive) return lines.push(line);
    const message = composer.add(line);
    // Keys typed from here until the next prompt are typed ahead, not edited on a line nobody sees.
    if (message !== undefined) return (setBusy(true), lines.push(message));
    editor.setPrompt(CONTINUATION_PROMPT);
    editor.prompt();
  });
  editor.on("close", () => {
    lines.end();
    answer?.(CTRL_D);
  });

  return {
    interactive,
    next: async (nextPrompt) => {
      prompt = nextPrompt;
      const queued = typedAhead.shift();
      if (queued !== undefined) {
        io.stdout.write(`${nextPrompt}${queued}\n`);
        return queued;
      }
      if (interactive && !lines.ready()) {
        setBusy(false);
        editor.setPrompt(nextPrompt);
        editor.prompt();
        const leftover = keys?.takeTypeAhead();
        if (leftover) editor.write(leftover);
      }
      return lines.next();
    },
    askKey: (question) =>
      new Promise((resolve) => {
        if (lines.closed()) return resolve(CTRL_D);
        io.stdout.write(question);
        keys?.setMode("answer");
        answer = (key) => {
          answer = undefined;
          keys?.setMode(busy ? "busy" : "prompt");
          resolve(key);
        };
      }),
    onInterrupt: (handler) => {
      state.interrupt = handler;
    },
    onTypedAhead: (handler) => {
      state.typedHandler = handler;
    },
    setBusy,
    notice: (text) => {
      if (!interactive || busy || prompt === "" || lines.closed()) return void io.stderr.write(`${text}\n`);
      io.stdout.write(`\r\x1b[K${text}\n`);
      editor.prompt(true);
    },
    remember: async (line) => {
      if (interactive && line.trim()) await appendFile(historyPath, `${line.replace(/\n/g, " ")}\n`).catch(() => {});
    },
    close: () => {
      keys?.close();
      editor.close();
      if (interactive) io.stdin.pause();
    },
  };
}

/**
 * The message being composed on a terminal: lines continued by `\` or Shift-Enter, and
 * pastes of several lines, held as `[Pasted text #n +k lines]` on the editor's line
 * (so the line editor stays one line) and put back in full when the message is sent.
 */
function createComposer() {
  const composer = {
    parts: [] as string[],
    pastes: [] as string[],
    soft: false,
    reset(): void {
      composer.parts = [];
      composer.pastes = [];
      composer.soft = false;
    },
    /** The text to put on the editor's line for a paste. */
    pasted(text: string): string {
      const trimmed = text.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
      if (!trimmed.includes("\n")) return trimmed;
      composer.pastes.push(trimmed);
      return `[Pasted text #${composer.pastes.length} +${trimmed.split("\n").length} lines]`;
    },
    /** Adds a finished editor line: the whole message when it ends here, undefined when it continues. */
    add(line: string): string | undefined {
      if (composer.soft || line.endsWith("\\")) {
        composer.parts.push(composer.soft ? line : line.slice(0, -1));
        composer.soft = false;
        return undefined;
      }
      const text = [...composer.parts, line].join("\n");
      const pastes = composer.pastes;
      composer.reset();
      return text.replace(PASTE_TOKEN, (token, n: string) => pastes[Number(n) - 1] ?? token);
    },
  };
  return composer;
}

/** Messages waiting to be read, in order, and the end of input. */
function createLineQueue() {
  const queue: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;
  return {
    push(line: string): void {
      const resolve = waiting;
      waiting = undefined;
      if (resolve) resolve(line);
      else queue.push(line);
    },
    end(): void {
      closed = true;
      waiting?.(undefined);
      waiting = undefined;
    },
    ready: (): boolean => queue.length > 0 || closed,
    closed: (): boolean => closed,
    next(): Promise<string | undefined> {
      if (queue.length > 0) return Promise.resolve(queue.shift());
      if (closed) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        waiting = resolve;
      });
    },
  };
}

async function loadHistory(path: string): Promise<string[]> {
  const text = await readRegularText(path).catch(() => "");
  return text.split("\n").filter((l) => l.trim()).slice(-HISTORY_SIZE).reverse();
}
