// Runs the CLI two ways: in this process through `main(argv, io)` with an io of its own, or as the real binary (`node bin/miniclaw.js`).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { PassThrough, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { createScreen, type Screen } from "./screen.js";

export const BIN = fileURLToPath(new URL("../../bin/miniclaw.js", import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  /** Text on stdin, then its end (default: empty). */
  input?: string;
  /** The working folder the command sees (default: this process's). */
  cwd?: string;
}

/** Runs in process only: stdin, stdout and stderr claim to be a terminal of 120 columns, and stdin stays open for `type`. */
export interface MainOptions extends CliOptions {
  terminal?: boolean;
}

/** Environment without any ANTHROPIC_* or MINICLAW_* variable of the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(ANTHROPIC_|MINICLAW_)/.test(k)) env[k] = v;
  return { ...env, NO_COLOR: "1", ...extra };
}

/** A CLI run in this process: its output so far, keys and signals to send it, and its result once `main` resolves. */
export interface MainRun {
  stdout(): string;
  stderr(): string;
  /** stdout and stderr together, as a terminal shows them. */
  screen: Screen;
  /** Types on stdin (a terminal run only). */
  type(text: string): void;
  /** Calls the handlers this run subscribed for `name` (nothing is sent to the test process). */
  signal(name: "SIGINT" | "SIGTERM"): void;
  /** Resizes the stand-in terminal (a terminal run only): stdout's `columns` change and it emits `resize`, as a TTY does. */
  resize(columns: number): void;
  done: Promise<CliRun>;
}

/**
 * Starts `main(args, io)` in this process with an io of its own: a copy of `env` (never
 * `process.env`), `cwd`, a stdin holding `input`, and captured stdout and stderr. Nothing is
 * shared with the test process or with other runs, so runs may go concurrently. A `terminal`
 * run is readline's terminal mode without a kernel terminal: keys are typed, raw mode is a no-op.
 */
export function startMain(args: string[], opts: MainOptions = {}): MainRun {
  const screen = createScreen();
  const out = { stdout: "", stderr: "" };
  const stdin = Object.assign(new PassThrough(), opts.terminal ? { isTTY: true, setRawMode: () => stdin } : {});
  if (!opts.terminal) stdin.end(opts.input ?? "");
  else if (opts.input) stdin.write(opts.input);
  const handlers = { SIGINT: new Set<() => void>(), SIGTERM: new Set<() => void>() };
  const stdout = capture(opts.terminal, (text) => {
    out.stdout += text;
    screen.append(text);
  });
  const io: CliIo = {
    stdin,
    stdout,
    stderr: capture(opts.terminal, (text) => {
      out.stderr += text;
      screen.append(text);
    }),
    env: { ...(opts.env ?? cleanEnv()) },
    cwd: opts.cwd ?? process.cwd(),
    stdinPiped: opts.input !== undefined,
    onSignal(name, handler) {
      handlers[name].add(handler);
      return () => handlers[name].delete(handler);
    },
  };
  return {
    stdout: () => out.stdout,
    stderr: () => out.stderr,
    screen,
    type: (text) => void stdin.write(text),
    signal: (name) => {
      for (const handler of [...handlers[name]]) handler();
    },
    resize: (columns) => {
      Object.assign(stdout, { columns });
      stdout.emit("resize");
    },
    done: main(args, io).then((code) => ({ code, ...out })),
  };
}

/** A stream that hands each write to `append`; a terminal one says it is a TTY of 120×40. */
function capture(terminal: boolean | undefined, append: (text: string) => void): Writable {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      append(chunk.toString());
      done();
    },
  });
  return terminal ? Object.assign(stream, { isTTY: true, columns: 120, rows: 40 }) : stream;
}

/** Runs `main(args, io)` in this process (see `startMain`) and resolves when it returns. */
export function runMain(args: string[], opts: MainOptions = {}): Promise<CliRun> {
  return startMain(args, opts).done;
}

/**
 * Runs the real binary with `args` and resolves when it exits (killed after `timeoutMs`). For what
 * only a process shows: exit codes, a real stdin pipe, signals; everything else goes through `runMain`. With `command`,
 * runs that program with `args` instead (a shell pipeline into the binary).
 */
export function runCli(args: string[], opts: CliOptions & { timeoutMs?: number; command?: string } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(opts.command ?? process.execPath, opts.command ? args : [BIN, ...args], { env: opts.env ?? cleanEnv(), cwd: opts.cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 15_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
}

/** A CliIo for calling one CLI function directly: `env` copied, output discarded, no signals. */
export function testIo(cwd: string, env: Record<string, string | undefined>): CliIo {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  return { stdin: new PassThrough(), stdout: sink, stderr: sink, env: { ...env }, cwd, onSignal: () => () => {} };
}

/** A real binary started by `startCli`: its output so far, the child to signal, and its exit code once it ends. */
export interface CliProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

/** Starts the real binary with `args` and returns at once, for what runs until a signal (`miniclaw cron`); the caller ends it. */
export function startCli(args: string[], opts: CliOptions = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], { env: opts.env ?? cleanEnv(), cwd: opts.cwd, stdio: ["pipe", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout.on("data", (d: Buffer) => (out.stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out.stderr += d.toString()));
  child.stdin.end(opts.input ?? "");
  return { child, stdout: () => out.stdout, stderr: () => out.stderr, exited: new Promise((resolve) => child.on("close", resolve)) };
}
