// What the bubblewrap sandbox costs per command: `echo hi` 200 times, plain `bash -c` against the read-only and confined policies.
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { probeBwrap } from "../src/shell/sandbox/bwrap-probe.js";
import { planCommand, spawnPlanned } from "../src/shell/sandbox/sandbox-command.js";
import { policyFor, type SandboxKind } from "../src/shell/sandbox/sandbox-policy.js";
import { machineLine, describeMachine } from "./table.js";
import { median, round, timeInterleaved } from "./stats.js";

const RUNS = 200;
const WARMUP = 10;
const COMMAND = "echo hi";

/** The value below which `share` of the sorted values lie (nearest rank). */
function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
}

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

async function main(): Promise<void> {
  const probe = await probeBwrap({ pathEnv: process.env["PATH"], spawn });
  if (!probe.available) throw new Error(`no sandbox to measure: ${probe.reason}`);
  const cwd = realpathSync(mkdtempSync(join(tmpdir(), "miniclaw-bench-sandbox-")));
  const place = { cwd, tmpdir: cwd, home: homedir(), setting: "on" as const, network: false };
  // Each sandboxed run resolves its policy again (the stats of every secret path), as a command would.
  const sandboxed = (kind: SandboxKind) => () => runOnce(planCommand(COMMAND, policyFor(kind, place), probe), cwd);
  try {
    const times = await timeInterleaved(
      {
        "plain bash -c": () => runOnce(planCommand(COMMAND, null, probe), cwd),
        "bwrap, read-only": sandboxed("read-only"),
        "bwrap, confined": sandboxed("confined"),
      },
      { warmup: WARMUP, runs: RUNS },
    );
    const plain = median(times["plain bash -c"]);
    console.log(machineLine(describeMachine()));
    console.log(`bubblewrap at ${probe.path}; ${RUNS} runs of \`${COMMAND}\` each, interleaved, after ${WARMUP} warm-up runs.\n`);
    console.log("| how | median ms | p95 ms | median over plain |");
    console.log("|---|---|---|---|");
    for (const [name, values] of Object.entries(times) as Array<[string, number[]]>) {
      console.log(`| ${name} | ${round(median(values))} | ${round(percentile(values, 0.95))} | +${round(median(values) - plain)} ms |`);
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

await main();
