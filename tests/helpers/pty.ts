// Drives the real CLI in a pseudo-terminal, as a person would: type keys, wait for text on the screen.
import { spawn, type IPty } from "@lydell/node-pty";
import { onTestFinished } from "vitest";
import { BIN } from "./cli.js";
import { createScreen, type Screen } from "./screen.js";

export interface Terminal extends Pick<Screen, "output" | "raw" | "waitFor"> {
  type(text: string): void;
  exited: Promise<number>;
  kill(): void;
}

/**
 * Starts `node bin/miniclaw.js ...args` in a pseudo-terminal of 120×40, as a person's terminal: TERM set and
 * no `CI` variable (with it, Node judges the terminal colourless whatever the program decides). Called in a
 * test, the terminal is killed when the test ends.
 */
export function startTerminal(args: string[], opts: { env: Record<string, string>; cwd: string }): Terminal {
  const { CI: _ci, ...env } = opts.env;
  const pty: IPty = spawn(process.execPath, [BIN, ...args], { cols: 120, rows: 40, cwd: opts.cwd, env: { ...env, TERM: "xterm-256color" } });
  const screen = createScreen();
  pty.onData((data) => screen.append(data));
  onTestFinished(() => pty.kill());
  return {
    output: screen.output,
    raw: screen.raw,
    waitFor: screen.waitFor,
    type: (text) => pty.write(text),
    exited: new Promise<number>((resolve) => pty.onExit(({ exitCode }) => resolve(exitCode))),
    kill: () => pty.kill(),
  };
}
