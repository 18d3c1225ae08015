// Messages from the terminal or a pipe: a line editor with history kept in the workspace, multi-line messages, pastes, type-ahead and single-key answers.
import { appendFile } from "node:fs/promises";
import { createInterface, type Interface } from "node:readline";
import type { CliIo } from "./io.js";
import { codePointsToCross, CTRL_C, CTRL_D, measureByGrapheme, TerminalKeys } from "./terminal-keys.js";
import { readRegularText } from "../fs/regular-file.js";

export const HISTORY_FILE = ".history";
const HISTORY_SIZE = 500;
/** The prompt of the second and later lines of a message (after `\` or Shift-Enter). */
const CONTINUATION_PROMPT = "… ";
const PASTE_TOKEN = /\[Pasted text #(\d+) \+\d+ lines\]/g;

/** Opens stdin as messages: on a TTY a line editor with the history of `historyPath`, pastes and type-ahead; on a pipe, one message per line as it comes. */
export async function openLineInput(io: CliIo, historyPath: string): Promise<LineInput> {
  const history = io.stdin.isTTY === true ? (await readRegularText(historyPath).catch(() => "")).split("\n").filter((l) => l.trim()) : [];
  return new LineInput(io, historyPath, history.slice(-HISTORY_SIZE).reverse());
}

/** The REPL's input; on a terminal, keys are sorted by `TerminalKeys` before the line editor sees them. */
export class LineInput {
  readonly interactive: boolean;
  private readonly keys: TerminalKeys | undefined;
  private readonly editor: Interface;
  private readonly lines = createLineQueue();
  private readonly composer = createComposer();
  private readonly typedAhead: string[] = [];
  private busy = false;
  private prompt = "";
  private answer: ((key: string) => void) | undefined;
  private readonly offResize: Array<() => void> = [];
  /** Called on Ctrl-C at an empty prompt, and on Ctrl-C or Esc while a turn runs (terminal only). */
  onInterrupt: (key: "ctrl-c" | "esc") => void = () => {};
  /** Called with each line typed while a turn runs (terminal only): true when it took the line, false to queue it as the next message. */
  onTypedAhead: (line: string) => boolean = () => false;

  constructor(private readonly io: CliIo, private readonly historyPath: string, history: string[]) {
    this.interactive = io.stdin.isTTY === true;
    const composer = this.composer;
    this.keys = !this.interactive ? undefined : new TerminalKeys(io.stdin, io.stdout, {
      interrupt: (key) => this.onInterruptKey(key),
      softEnter: () => {
        composer.soft = true;
        this.keys!.editorInput.write("\r");
      },
      paste: (text) => this.keys!.editorInput.write(composer.pasted(text)),
      queued: (line) => {
        if (!this.onTypedAhead(line)) this.typedAhead.push(line);
      },
      answer: (key) => this.answer?.(key),
      repeatFor: (key) => codePointsToCross(this.editor.line, this.editor.cursor, key),
    });
    const input = this.keys?.editorInput ?? io.stdin;
    const resizeListeners = io.stdout.listeners("resize");
    this.editor = createInterface({ input, output: io.stdout, terminal: this.interactive, history, historySize: HISTORY_SIZE, removeHistoryDuplicates: true });
    if (this.interactive) {
      measureByGrapheme(this.editor);
      this.redrawOnResizeAtPromptOnly(resizeListeners);
    }
    this.editor.on("line", (line) => {
      if (!this.interactive) return this.lines.push(line);
      const message = composer.add(line);
      // Keys typed from here until the next prompt are typed ahead, not edited on a line nobody sees.
      if (message !== undefined) return (this.setBusy(true), this.lines.push(message));
      this.editor.setPrompt(CONTINUATION_PROMPT);
      this.editor.prompt();
    });
    this.editor.on("close", () => {
      this.lines.end();
      this.answer?.(CTRL_D);
    });
  }

  /** The next message, or undefined at end of input (Ctrl-D, end of the pipe); on a terminal it may span lines (`\`, Shift-Enter, a paste). */
  async next(prompt: string): Promise<string | undefined> {
    this.prompt = prompt;
    const queued = this.typedAhead.shift();
    if (queued !== undefined) {
      this.io.stdout.write(`${prompt}${queued}\n`);
      return queued;
    }
    if (this.interactive && !this.lines.ready()) {
      this.setBusy(false);
      this.editor.setPrompt(prompt);
      this.editor.prompt();
      const leftover = this.keys?.takeTypeAhead();
      if (leftover) this.editor.write(leftover);
    }
    return this.lines.next();
  }

  /** Asks a single-key question (terminal only): the key pressed, lower-cased; CTRL_C for Ctrl-C or Esc, or as soon as `signal` aborts; CTRL_D for Ctrl-D or end of input. */
  askKey(question: string, signal?: AbortSignal): Promise<string> {
    return new Promise((resolve) => {
      if (this.lines.closed()) return resolve(signal?.aborted ? CTRL_C : CTRL_D);
      this.io.stdout.write(question);
      if (this.keys) this.keys.mode = "answer";
      const aborted = (): void => this.answer?.(CTRL_C);
      this.answer = (key) => {
        this.answer = undefined;
        signal?.removeEventListener("abort", aborted);
        if (this.keys) this.keys.mode = this.busy ? "busy" : "prompt";
        resolve(key);
      };
      if (signal?.aborted) aborted();
      else signal?.addEventListener("abort", aborted, { once: true });
    });
  }

  /** A turn runs (true) or ended (false): meanwhile keys are typed ahead, and Enter queues the line. Busy from each message read until the next prompt. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    if (this.keys) this.keys.mode = busy ? "busy" : "prompt";
  }

  /** Appends a message to the history file (terminal only; a failure is ignored). */
  async remember(line: string): Promise<void> {
    if (this.interactive && line.trim()) await appendFile(this.historyPath, `${line.replace(/\n/g, " ")}\n`).catch(() => {});
  }

  /** A line that arrived on its own (a server's warning): above the prompt a terminal shows, which is drawn again; otherwise on stderr. */
  notice(text: string): void {
    if (!this.interactive || this.busy || this.prompt === "" || this.lines.closed()) return void this.io.stderr.write(`${text}\n`);
    this.io.stdout.write(`\r\x1b[K${text}\n`);
    this.editor.prompt(true);
  }

  close(): void {
    this.offResize.forEach((off) => off());
    this.keys?.close();
    this.editor.close();
    if (this.interactive) this.io.stdin.pause();
  }

  /** Readline redraws prompt and line on every resize, wherever the cursor is (a stray prompt mid-reply, later a ghost), so its listener is kept for the prompt alone. */
  private redrawOnResizeAtPromptOnly(before: readonly unknown[]): void {
    const out = this.io.stdout;
    for (const listener of out.listeners("resize").filter((l) => !before.includes(l)) as Array<() => void>) {
      out.off("resize", listener);
      const atPrompt = (): void => {
        if (!this.busy && this.keys?.mode === "prompt" && !this.lines.closed()) listener();
      };
      out.on("resize", atPrompt);
      this.offResize.push(() => out.off("resize", atPrompt));
    }
  }

  /** Ctrl-C at the prompt first empties the line (and the message being composed); on an empty one, or during a turn, it goes to the REPL. */
  private onInterruptKey(key: "ctrl-c" | "esc"): void {
    if (this.busy) return this.onInterrupt(key);
    const composing = this.composer.parts.length > 0;
    if (!this.editor.line && !composing) {
      this.onInterrupt(key);
      if (!this.lines.closed()) this.editor.prompt();
      return;
    }
    this.composer.reset();
    this.editor.write(null, { ctrl: true, name: "e" });
    this.editor.write(null, { ctrl: true, name: "u" });
    if (!composing) return;
    this.io.stdout.write("\n");
    this.editor.setPrompt(this.prompt);
    this.editor.prompt();
  }
}

/** The message being composed: lines continued by `\` or Shift-Enter, and multi-line pastes held as `[Pasted text #n +k lines]` on the editor's one line, put back in full when it is sent. */
function createComposer() {
  const composer = {
    parts: [] as string[],
    pastes: [] as string[],
    soft: false,
    reset(): void {
      [composer.parts, composer.pastes, composer.soft] = [[], [], false];
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
  const take = (line: string | undefined): void => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(line);
  };
  return {
    push: (line: string): void => (waiting ? take(line) : void queue.push(line)),
    end(): void {
      closed = true;
      take(undefined);
    },
    ready: (): boolean => queue.length > 0 || closed,
    closed: (): boolean => closed,
    next: (): Promise<string | undefined> =>
      queue.length > 0 ? Promise.resolve(queue.shift()) : closed ? Promise.resolve(undefined) : new Promise((resolve) => (waiting = resolve)),
  };
}
