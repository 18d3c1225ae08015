// Spawning the child scripts of tests/fixtures/sessions and waiting on what they say.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** A running child script with helpers to wait for a line of its stdout and for its exit. */
export interface Child {
  process: ChildProcess;
  pid: number;
  waitFor(line: string): Promise<void>;
  /** Everything the child printed on stdout so far. */
  stdout(): string;
  /** Sends a line to the child's stdin (started with `stdin: true`). */
  send(line: string): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Starts `tests/fixtures/sessions/<script>` with `args`. */
export function startChild(script: string, args: string[], options: { stdin?: boolean } = {}): Child {
  const path = fileURLToPath(new URL(`../fixtures/sessions/${script}`, import.meta.url));
  const child = spawn(process.execPath, [path, ...args], { stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const listeners: Array<() => void> = [];
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    listeners.forEach((listener) => listener());
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stderr })),
  );
  const waitFor = (line: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (stdout.split("\n").includes(line)) resolve();
      };
      listeners.push(check);
      check();
      void exited.then(({ code, stderr: err }) => reject(new Error(`${script} exited (${code}) before "${line}": ${err}`)));
    });
  if (child.pid === undefined) throw new Error(`could not start ${script}`);
  const send = (line: string): void => void child.stdin?.write(`${line}\n`);
  return { process: child, pid: child.pid, waitFor, exited, stdout: () => stdout, send };
}
