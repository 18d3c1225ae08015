// What the user adds to the conversation besides their words, held for the next message: `@path` files, and a `!command`'s output (a shell command
// the user runs themselves, no gate: nobody but them asked, shown as it runs).
import { styleText } from "node:util";
import type { Assistant } from "../assistant/assistant.js";
import { cutMiddle } from "../content.js";
import type { Spawn } from "../deps.js";
import { redactSecrets } from "../gate/redact.js";
import type { ContentBlockParam } from "../types.js";
import { given } from "./args.js";
import type { CliIo } from "./io.js";
import type { LineInput } from "./line-input.js";
import { attachMentions } from "./mentions.js";
import { visibleText } from "./visible-text.js";

/** Context waiting for the next message: added by `!command` and `@path`, taken (and emptied) by the next turn's start. */
export interface PendingContext {
  add(text: string): void;
  /** Images and PDFs (`@path`), sent with the next message. */
  addBlocks(blocks: ContentBlockParam[]): void;
  /** Everything added since the last take, emptied: the texts in order as `context`, and the `blocks`; each absent when none was added. */
  take(): { context?: string; blocks?: ContentBlockParam[] };
}

export function createPendingContext(): PendingContext {
  let parts: string[] = [];
  let blocks: ContentBlockParam[] = [];
  return {
    add: (text) => void parts.push(text),
    addBlocks: (more) => void blocks.push(...more),
    take() {
      const taken = given({ context: parts.length > 0 ? parts.join("\n\n") : undefined, blocks: blocks.length > 0 ? blocks : undefined });
      [parts, blocks] = [[], []];
      return taken;
    },
  };
}

/** What running a command or attaching files needs of the REPL; `command` is set while a command runs, for Ctrl-C. */
export interface UserContextHost {
  io: CliIo;
  input: LineInput;
  state: { assistant: Assistant; color: boolean };
  context: PendingContext;
  command?: AbortController | undefined;
}

/** `!command`: run in the working folder with the user's shell (no gate: they typed it), shown as it runs, stopped by Ctrl-C; it, its exit and output (bounded, redacted) go with the next message. */
export async function runUserCommand(command: string, host: UserContextHost): Promise<void> {
  const { io, input, state } = host;
  const out = input.interactive ? io.stdout : io.stderr;
  const note = (text: string): void => void out.write(`${state.color ? styleText("dim", text) : text}\n`);
  if (command.trim() === "") return note("Usage: !command (runs it in your shell; its output goes with your next message)");
  const controller = new AbortController();
  host.command = controller;
  input.setBusy(true);
  let atLineStart = true;
  try {
    const result = await runShellLine(command, {
      spawn: state.assistant.runtime.spawn,
      cwd: io.cwd,
      env: io.env,
      shell: io.env["SHELL"],
      signal: controller.signal,
      show: (text) => {
        out.write(visibleText(text, { keepLineBreaks: true }));
        atLineStart = text.endsWith("\n");
      },
    });
    if (!atLineStart) out.write("\n");
    host.context.add(shellContext(command, io.cwd, result, redactor(state.assistant)));
    const ended = typeof result.exit === "number" ? `exit code ${result.exit}` : `stopped (${result.exit})`;
    note(`(${ended}; the command and its output go with your next message)`);
  } finally {
    host.command = undefined;
    input.setBusy(false);
  }
}

/** Attaches the files `line` mentions with `@path` to the next message, one line each on what was attached or why not. */
export async function attachFiles(line: string, host: UserContextHost): Promise<void> {
  const { io, input, state } = host;
  const out = input.interactive ? io.stdout : io.stderr;
  const attached = await attachMentions(line, { cwd: io.cwd, home: io.env["HOME"], redact: redactor(state.assistant) });
  for (const text of attached.lines) out.write(`${state.color ? styleText("dim", visibleText(text)) : visibleText(text)}\n`);
  if (attached.context) host.context.add(attached.context);
  host.context.addBlocks(attached.blocks);
}

/** Removes the runtime's secret values and anything shaped like a credential: what tool results get, for what the user adds. */
function redactor(assistant: Assistant): (text: string) => string {
  return (text) => redactSecrets(text, assistant.runtime.secrets);
}

/** Most characters of a command's output the model is given with the next message; longer output keeps its head and tail. */
const MAX_SHELL_CONTEXT_CHARS = 20_000;
/** Output held in memory at most, head and tail (the terminal shows all of it as it comes). */
const MAX_HELD_CHARS = 4 * MAX_SHELL_CONTEXT_CHARS;

/** What a `!command` needs: how to start it, where, with what environment, and where its output is shown. */
interface ShellLineOptions {
  spawn: Spawn;
  cwd: string;
  env: Record<string, string | undefined>;
  /** The user's shell (`$SHELL`), else /bin/sh. */
  shell?: string | undefined;
  /** Aborted by Ctrl-C: the command's process group is stopped. */
  signal: AbortSignal;
  /** Each piece of output as it arrives (stdout and stderr together, as a terminal shows them). */
  show(text: string): void;
}

/** How a command ended and what it printed. */
interface ShellLineResult {
  /** The exit code, or the signal's name when one ended it. */
  exit: number | string;
  output: string;
}

/** Runs `command` with `shell -c`, stdin closed; resolves when it exits (never rejects: a failure to start is its output). */
function runShellLine(command: string, opts: ShellLineOptions): Promise<ShellLineResult> {
  return new Promise((resolve) => {
    const held = createHeldOutput();
    const child = opts.spawn(opts.shell || "/bin/sh", ["-c", command], { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    const take = (data: Buffer | string): void => {
      const text = data.toString();
      held.add(text);
      opts.show(text);
    };
    child.stdout?.setEncoding("utf8").on("data", take);
    child.stderr?.setEncoding("utf8").on("data", take);
    // The whole group, so a pipeline's other programs stop too.
    const stop = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
      } catch {
        child.kill("SIGTERM");
      }
    };
    opts.signal.addEventListener("abort", stop, { once: true });
    if (opts.signal.aborted) stop();
    child.on("error", (error) => take(`${error.message}\n`));
    child.on("close", (code, signal) => {
      opts.signal.removeEventListener("abort", stop);
      resolve({ exit: code ?? signal ?? "unknown", output: held.text() });
    });
  });
}

/** The context a command gives the next message: command, folder, how it ended, output (at most MAX_SHELL_CONTEXT_CHARS, head and tail), through `redact` so no credential reaches the model. */
function shellContext(command: string, cwd: string, result: ShellLineResult, redact: (text: string) => string): string {
  const output = cutMiddle(result.output.trimEnd(), MAX_SHELL_CONTEXT_CHARS, (cut) => `\n[… ${cut} characters cut here …]\n`);
  const ended = typeof result.exit === "number" ? `exit code ${result.exit}` : `stopped by ${result.exit}`;
  return redact(`The user ran a shell command themselves in ${cwd} (${ended}):\n$ ${command}\n${output || "(no output)"}`);
}

/** Output kept whole up to MAX_HELD_CHARS; beyond it, the first half of that and the latest half, with a count of what fell between. */
function createHeldOutput() {
  let head = "";
  let tail = "";
  let dropped = 0;
  return {
    add(text: string): void {
      if (head.length < MAX_HELD_CHARS / 2) {
        const room = MAX_HELD_CHARS / 2 - head.length;
        head += text.slice(0, room);
        text = text.slice(room);
      }
      tail += text;
      if (tail.length > MAX_HELD_CHARS / 2) {
        dropped += tail.length - MAX_HELD_CHARS / 2;
        tail = tail.slice(-MAX_HELD_CHARS / 2);
      }
    },
    text: (): string => (dropped > 0 ? `${head}\n[… ${dropped} characters not kept …]\n${tail}` : head + tail),
  };
}
