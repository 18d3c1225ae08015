// `!command` in the REPL: a shell command the user runs themselves (no gate: nobody but them asked), shown as it runs and kept for the next message.
import type { Spawn } from "../deps.js";
import { cutMiddle } from "../content.js";

/** Most characters of a command's output the model is given with the next message; longer output keeps its head and tail. */
export const MAX_SHELL_CONTEXT_CHARS = 20_000;
/** Output held in memory at most, head and tail (the terminal shows all of it as it comes). */
const MAX_HELD_CHARS = 4 * MAX_SHELL_CONTEXT_CHARS;

/** What a `!command` needs: how to start it, where, with what environment, and where its output is shown. */
export interface ShellLineOptions {
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
export interface ShellLineResult {
  /** The exit code, or the signal's name when one ended it. */
  exit: number | string;
  output: string;
}

/** Runs `command` with `shell -c`, stdin closed; resolves when it exits (never rejects: a failure to start is its output). */
export function runShellLine(command: string, opts: ShellLineOptions): Promise<ShellLineResult> {
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
export function shellContext(command: string, cwd: string, result: ShellLineResult, redact: (text: string) => string): string {
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
