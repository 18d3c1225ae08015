// Child processes of the bench: spawn a Node script, collect its output, and read the peak RSS and CPU it reports on exit.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

/**
 * Preloaded into a child (`--import`): at its `exit` event it writes its peak resident set size and
 * the CPU time of all its threads so far (user + system) to stderr.
 */
export const PRINT_RSS_AND_CPU =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write(`\\nbench-max-rss-kb=${u.maxRSS} bench-cpu-us=${u.userCPUTime+u.systemCPUTime}\\n`)})';

/** Longest a child may take before it is killed (the run then fails). */
const CHILD_TIMEOUT_MS = 60_000;

/** One finished child. */
export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `performance.now()` just before the spawn and at its `exit` event, on this process's clock. */
  spawnedAt: number;
  exitedAt: number;
  /** Peak RSS in kilobytes and CPU time in microseconds when the child was started with PRINT_RSS_AND_CPU, else undefined. */
  maxRssKb: number | undefined;
  cpuUs: number | undefined;
}

/** Runs `node ARGS` to its end with exactly `env` (nothing inherited: no NODE_OPTIONS, no MINICLAW_*); killed after a minute. */
export function runNode(args: readonly string[], options: { cwd: string; env: Record<string, string> }): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const spawnedAt = performance.now();
    let exitedAt = Number.NaN;
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", () => (exitedAt = performance.now()));
    child.on("close", (code) => {
      clearTimeout(timer);
      const figures = /bench-max-rss-kb=(\d+) bench-cpu-us=(\d+)/.exec(stderr);
      resolve({ code, stdout, stderr, spawnedAt, exitedAt, maxRssKb: figures ? Number(figures[1]) : undefined, cpuUs: figures ? Number(figures[2]) : undefined });
    });
  });
}

/** Throws with the child's output when it did not exit 0. */
export function expectSuccess(run: ChildRun, what: string): ChildRun {
  if (run.code !== 0) throw new Error(`${what} exited ${String(run.code)}:\n${run.stdout}\n${run.stderr}`);
  return run;
}
