// Lines from the terminal or a pipe, with input history kept in the workspace and inline questions for approvals.
import { appendFile, readFile } from "node:fs/promises";
import { createInterface, type Interface } from "node:readline";
import type { CliIo } from "./io.js";

export const HISTORY_FILE = ".history";
const HISTORY_SIZE = 500;

export interface LineInput {
  readonly interactive: boolean;
  /** The next line typed, or undefined at end of input (Ctrl-D, end of the pipe). */
  next(prompt: string): Promise<string | undefined>;
  /** Asks a question during a turn and resolves to the answer ("" at end of input). */
  ask(question: string): Promise<string>;
  /** Called on Ctrl-C (TTY only). */
  onInterrupt(handler: () => void): void;
  /** Appends a line to the history file. */
  remember(line: string): Promise<void>;
  close(): void;
}

/** Opens stdin as lines. On a TTY, readline edits lines and keeps history; on a pipe, lines are read as they come. */
export async function openLineInput(io: CliIo, historyPath: string): Promise<LineInput> {
  const interactive = io.stdin.isTTY === true;
  const history = interactive ? await loadHistory(historyPath) : [];
  const rl: Interface = createInterface({
    input: io.stdin,
    output: io.stdout,
    terminal: interactive,
    history,
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  const queue: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let closed = false;
  let interrupt = (): void => {};
  rl.on("line", (line) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(line);
    } else {
      queue.push(line);
    }
  });
  rl.on("close", () => {
    closed = true;
    waiting?.(undefined);
    waiting = undefined;
  });
  rl.on("SIGINT", () => interrupt());
  const read = (prompt: string): Promise<string | undefined> => {
    if (queue.length > 0) return Promise.resolve(queue.shift());
    if (closed) return Promise.resolve(undefined);
    if (interactive) {
      rl.setPrompt(prompt);
      rl.prompt();
    }
    return new Promise((resolve) => {
      waiting = resolve;
    });
  };
  return {
    interactive,
    next: read,
    ask: async (question) => (await read(question)) ?? "",
    onInterrupt: (handler) => {
      interrupt = handler;
    },
    remember: async (line) => {
      if (interactive && line.trim()) await appendFile(historyPath, `${line.replace(/\n/g, " ")}\n`).catch(() => {});
    },
    close: () => rl.close(),
  };
}

async function loadHistory(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8").catch(() => "");
  return text.split("\n").filter((l) => l.trim()).slice(-HISTORY_SIZE).reverse();
}
