// What the user adds to the conversation besides their words: a `!command`'s output and `@path` files, held for the next message.
import { styleText } from "node:util";
import type { Assistant } from "../assistant/assistant.js";
import { redactSecrets } from "../gate/redact.js";
import type { ContentBlockParam } from "../types.js";
import { given } from "./args.js";
import type { CliIo } from "./io.js";
import type { LineInput } from "./line-input.js";
import { attachMentions } from "./mentions.js";
import { runShellLine, shellContext } from "./shell-line.js";
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
