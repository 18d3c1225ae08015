// Spawning the child scripts of tests/fixtures/reliability and waiting on the lines they print.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** How a child ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running child script. */
export interface Child {
  process: ChildProcess;
  /** Resolves when a whole stdout line starts with `prefix`, counting only lines printed after `after` lines. */
  waitFor(prefix: string, after?: number): Promise<void>;
  /** Writes one line to the child's stdin. */
  send(line: string): void;
  /** Lines printed so far. */
  lines(): string[];
  exited: Promise<ChildExit>;
}

/** Starts `tests/fixtures/reliability/<script>` with `args` (and `env` added to the test's own environment). */
export function startChild(script: string, args: string[], env: Record<string, string> = {}): Child {
  const path = fileURLToPath(new URL(`../fixtures/reliability/${script}`, import.meta.url));
  const child = spawn(process.execPath, [path, ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
  child.stdin.on("error", () => {});
  let stdout = "";
  let stderr = "";
  const listeners = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<ChildExit>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  const lines = (): string[] => stdout.split("\n").slice(0, -1);
  const waitFor = (prefix: string, after = 0): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (lines().slice(after).some((line) => line.startsWith(prefix))) {
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      check();
      void exited.then((exit) => {
        listeners.delete(check);
        reject(new Error(`${script} ended (${exit.code ?? exit.signal}) before printing "${prefix}": ${exit.stderr.slice(-2_000)}`));
      });
    });
  const send = (line: string): void => void child.stdin.write(`${line}\n`);
  return { process: child, waitFor, send, lines, exited };
}

/** A small seeded generator (mulberry32), so a failing random run can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
