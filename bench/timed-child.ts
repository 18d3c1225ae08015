// A timed child process of the whole-process rows: when it was spawned and when it exited, on this process's clock, with the peak RSS and CPU it reports at exit.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

/**
 * Preloaded into each child (`--import`): at its `exit` event it writes its peak resident set size
 * and the CPU time of all its threads so far (user + system) to stderr.
 */
export const PRINT_RSS_AND_CPU =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write(`\\nbench-max-rss-kb=${u.maxRSS} bench-cpu-us=${u.userCPUTime+u.systemCPUTime}\\n`)})';

/** Longest a child may take before it is killed and the bench fails. */
const CHILD_TIMEOUT_MS = 60_000;

/** One finished child. */
export interface TimedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `performance.now()` just before the spawn and at its `exit` event. */
  spawnedAt: number;
  exitedAt: number;
  maxRssKb: number;
  cpuUs: number;
}

/** Runs `node --import PRINT_RSS_AND_CPU ARGS` to its end with exactly `env`; rejects when it does not exit 0 or report its figures. */
export function runTimedNode(args: readonly string[], options: { cwd: string; env: Record<string, string> }): Promise<TimedRun> {
  return new Promise((resolve, reject) => {
    const spawnedAt = performance.now();
    let exitedAt = Number.NaN;
    const child = spawn(process.execPath, ["--import", PRINT_RSS_AND_CPU, ...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", () => (exitedAt = performance.now()));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const figures = /bench-max-rss-kb=(\d+) bench-cpu-us=(\d+)/.exec(stderr);
      if (code !== 0 || figures === null) {
        reject(new Error(`node ${args.join(" ")} exited ${String(code ?? signal)}:\n${stdout}\n${stderr}`));
        return;
      }
      resolve({ code, stdout, stderr, spawnedAt, exitedAt, maxRssKb: Number(figures[1]), cpuUs: Number(figures[2]) });
    });
  });
}
