// Runs of the PostgreSQL load bench: children of pg-load-child.mjs released together, the server's connections sampled meanwhile.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import pg from "pg";

const CHILD = fileURLToPath(new URL("./pg-load-child.mjs", import.meta.url));

/** What one child is told (see pg-load-child.mjs). */
export interface LoadJob {
  baseURL: string;
  workspace: string;
  url?: string;
  schema?: string;
  keys: string[];
  turns: number;
  lanes: number;
  tag: string;
}

/** A run's figures: the window from the common start to the last child's answer, each turn's time, peak connections per process. */
export interface LoadRun {
  windowMs: number;
  turnMs: number[];
  /** Most connections any one miniclaw process held at once (its two pools), and pg-boss's beside; 0 for files. */
  peakConnections: number;
}

function startChild(job: LoadJob): { process: ChildProcessWithoutNullStreams; printed: (test: (out: string) => boolean) => Promise<string> } {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(job)], { env: { PATH: process.env["PATH"] ?? "", NO_COLOR: "1" }, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  const waiting: Array<() => void> = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => ((stdout += chunk), waiting.splice(0).forEach((wake) => wake())));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const printed = async (test: (out: string) => boolean): Promise<string> => {
    while (!test(stdout)) {
      const more = new Promise<boolean>((resolve) => waiting.push(() => resolve(false)));
      if (await Promise.race([more, exited.then(() => true)]) && !test(stdout)) throw new Error(`load child ${job.tag} stopped:\n${stdout}\n${stderr}`);
    }
    return stdout;
  };
  return { process: child, printed };
}

/** Samples, every 25 ms until stopped, the most connections one miniclaw process holds to `url` (by application name). */
function sampleConnections(url: string): { stop: () => Promise<number> } {
  const client = new pg.Client({ connectionString: url });
  let peak = 0;
  let stopped = false;
  const sql = "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE 'miniclaw pid %' GROUP BY application_name ORDER BY n DESC LIMIT 1";
  const loop = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query<{ n: number }>(sql);
      peak = Math.max(peak, rows[0]?.n ?? 0);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await client.end();
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return peak;
    },
  };
}

/** Starts one child per job, releases them together once all are ready, and gathers their turn times. */
export async function runLoad(jobs: LoadJob[], sampleUrl?: string): Promise<LoadRun> {
  const children = jobs.map(startChild);
  try {
    await Promise.all(children.map((child) => child.printed((out) => out.startsWith("ready\n"))));
    const sampler = sampleUrl ? sampleConnections(sampleUrl) : undefined;
    const started = performance.now();
    children.forEach((child) => child.process.stdin.write("go\n"));
    const outputs = await Promise.all(children.map((child) => child.printed((out) => /\n\{.*\}\n/.test(out))));
    const windowMs = performance.now() - started;
    const peakConnections = (await sampler?.stop()) ?? 0;
    const turnMs = outputs.flatMap((out) => (JSON.parse(/\n(\{.*\})\n/.exec(out)![1]!) as { turnMs: number[] }).turnMs);
    return { windowMs, turnMs, peakConnections };
  } finally {
    children.forEach((child) => child.process.kill("SIGKILL"));
  }
}

