// Drives the real CLI in a pseudo-terminal, as a person would: type keys, wait for text on the screen.
import { spawn, type IPty } from "@lydell/node-pty";
import { BIN } from "./cli.js";

export interface Terminal {
  /** Everything printed so far, with ANSI escapes removed. */
  output(): string;
  /** Everything printed so far, byte for byte (escapes included). */
  raw(): string;
  type(text: string): void;
  /** Resolves when `pattern` appears in the output after `from` (default: anywhere); rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, opts?: { from?: number; timeoutMs?: number }): Promise<void>;
  exited: Promise<number>;
  kill(): void;
}

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\r/g;

/**
 * Starts `node bin/miniclaw.js ...args` in a pseudo-terminal of 120×40, as a person's terminal: TERM set and
 * no `CI` variable (with it, Node judges the terminal colourless whatever the program decides).
 */
export function startTerminal(args: string[], opts: { env: Record<string, string>; cwd: string }): Terminal {
  const { CI: _ci, ...env } = opts.env;
  const pty: IPty = spawn(process.execPath, [BIN, ...args], { cols: 120, rows: 40, cwd: opts.cwd, env: { ...env, TERM: "xterm-256color" } });
  let raw = "";
  const watchers = new Set<() => void>();
  pty.onData((data) => {
    raw += data;
    for (const w of watchers) w();
  });
  const exited = new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode)));
  const output = (): string => raw.replace(ANSI, "");
  return {
    output,
    raw: () => raw,
    type: (text) => pty.write(text),
    waitFor: (pattern, { from = 0, timeoutMs = 8_000 } = {}) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (pattern.test(output().slice(from))) {
            watchers.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; screen so far:\n${output().slice(-2000)}`));
        }, timeoutMs);
        watchers.add(check);
        check();
      }),
    exited,
    kill: () => pty.kill(),
  };
}
