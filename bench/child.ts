// Child processes of the bench: spawn a Node script, collect its output, and read the peak RSS it reports on exit.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

/** Preloaded into a child (`--import`): on exit, it writes its peak resident set size to stderr. */
export const PRINT_MAX_RSS =
  'data:text/javascript,process.on("exit",()=>process.stderr.write(`\\nbench-max-rss-kb=${process.resourceUsage().maxRSS}\\n`))';

/** One finished child. */
export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `performance.now()` just before the spawn, on this process's clock. */
  spawnedAt: number;
  /** Peak RSS in kilobytes when the child was started with PRINT_MAX_RSS, else undefined. */
  maxRssKb: number | undefined;
}

/** Runs `node ARGS` to its end with exactly `env` (nothing inherited: no NODE_OPTIONS, no MINICLAW_*). */
export function runNode(args: readonly string[], options: { cwd: string; env: Record<string, string> }): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const spawnedAt = performance.now();
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      const rss = /bench-max-rss-kb=(\d+)/.exec(stderr)?.[1];
      resolve({ code, stdout, stderr, spawnedAt, maxRssKb: rss === undefined ? undefined : Number(rss) });
    });
  });
}

/** Throws with the child's output when it did not exit 0. */
export function expectSuccess(run: ChildRun, what: string): ChildRun {
  if (run.code !== 0) throw new Error(`${what} exited ${String(run.code)}:\n${run.stdout}\n${run.stderr}`);
  return run;
}
