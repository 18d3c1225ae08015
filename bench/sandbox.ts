// What the bubblewrap sandbox costs per command: `echo hi` 200 times, plain `bash -c` against the read-only and confined policies.
// Part of `npm run bench` (its rows); alone: `npx tsx bench/sandbox.ts`, a table with p95s.
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { probeBwrap } from "../src/shell/sandbox/bwrap-probe.js";
import { planCommand, spawnPlanned } from "../src/shell/sandbox/sandbox-command.js";
import { policyFor, type SandboxKind } from "../src/shell/sandbox/sandbox-policy.js";
import { machineLine, describeMachine } from "./table.js";
import { median, percentile, round, timeInterleaved } from "./stats.js";

const RUNS = 200;
const WARMUP = 10;
const COMMAND = "echo hi";

/** Runs one planned command to its end; rejects unless it printed `hi` and exited 0. */
function runOnce(plan: ReturnType<typeof planCommand>, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = "";
    const child = spawnPlanned(spawn, plan, { cwd, stdio: ["ignore", "pipe", "pipe"], detached: true });
    child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 && out === "hi\n" ? resolve() : reject(new Error(`exit ${code}, stdout ${JSON.stringify(out)}`))));
  });
}

/** The medians and p95s (ms) of each way, or why there is no sandbox to measure here. */
export type SandboxBench = { times: Record<"plain" | "readOnly" | "confined", { median: number; p95: number }>; bwrap: string } | { skipped: string };

/** Times `echo hi` plainly and under both sandbox policies, interleaved. */
export async function benchSandbox(): Promise<SandboxBench> {
  const probe = await probeBwrap({ pathEnv: process.env["PATH"], spawn });
  if (!probe.available) return { skipped: `no sandbox to measure: ${probe.reason}` };
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "miniclaw-bench-sandbox-")));
  const place = { cwd, tmpdir: cwd, home: homedir(), setting: "on" as const, network: false };
  // Each sandboxed run resolves its policy again (the stats of every secret path), as a command would.
  const sandboxed = (kind: SandboxKind) => () => runOnce(planCommand(COMMAND, policyFor(kind, place), probe), cwd);
  try {
    const times = await timeInterleaved(
      { plain: () => runOnce(planCommand(COMMAND, null, probe), cwd), readOnly: sandboxed("read-only"), confined: sandboxed("confined") },
      { warmup: WARMUP, runs: RUNS },
    );
    const of = (values: number[]) => ({ median: round(median(values)), p95: round(percentile(values, 0.95)) });
    return { times: { plain: of(times.plain), readOnly: of(times.readOnly), confined: of(times.confined) }, bwrap: probe.path };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bench = await benchSandbox();
  if ("skipped" in bench) throw new Error(bench.skipped);
  const { plain, readOnly, confined } = bench.times;
  console.log(machineLine(describeMachine()));
  console.log(`bubblewrap at ${bench.bwrap}; ${RUNS} runs of \`${COMMAND}\` each, interleaved, after ${WARMUP} warm-up runs.\n`);
  console.log("| how | median ms | p95 ms | median over plain |");
  console.log("|---|---|---|---|");
  for (const [name, t] of [["plain bash -c", plain], ["bwrap, read-only", readOnly], ["bwrap, confined", confined]] as const) {
    console.log(`| ${name} | ${t.median} | ${t.p95} | +${round(t.median - plain.median)} ms |`);
  }
}
