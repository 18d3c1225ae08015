// `npm run bench`: every measurement of issues 7, 17 and 18 against the scripted model, printed as one table and saved to bench/results.json.
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { loadBuiltLibrary } from "./built-library.js";
import { benchCache } from "./cache.js";
import { benchCacheTtl, cacheTtlRows } from "./cache-ttl.js";
import { benchCli } from "./cli.js";
import { benchGate } from "./gate.js";
import { benchHarness } from "./harness.js";
import { benchMemorySearch } from "./memory-search.js";
import { benchParallelTools } from "./parallel-tools.js";
import { benchProcessRuns } from "./process-runs.js";
import { buildRows, type Measurements } from "./report.js";
import { benchSessions } from "./sessions.js";
import { benchSandbox } from "./sandbox.js";
import { sandboxRows } from "./report-18.js";
import { benchSessionsPg } from "./sessions-pg.js";
import { benchPgLoad } from "./pg-load.js";
import { pgLoadRows } from "./report-pg-load.js";
import { describeMachine, formatTable, machineLine } from "./table.js";

const RESULTS = fileURLToPath(new URL("./results.json", import.meta.url));
/** The load bench's server (as the sessions bench's) and its cron window in seconds (MINICLAW_BENCH_CRON_S, default 60). */
const PG_LOAD_URL = process.env["MINICLAW_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
const CRON_SECONDS = Number(process.env["MINICLAW_BENCH_CRON_S"] ?? 60);

/** Runs one section, saying on stderr how long it took (stdout carries only the table). */
async function section<T>(name: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  process.stderr.write(`bench: ${name}...`);
  const result = await run();
  process.stderr.write(` ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return result;
}

async function main(): Promise<void> {
  const machine = describeMachine();
  const started = performance.now();
  const lib = await loadBuiltLibrary();
  // Timing-sensitive sections first, while this process is small and the machine is as quiet as it will be.
  const harness = await section("harness overhead (20-request turns, miniclaw and the bare loop)", () => benchHarness(lib));
  const cli = await section("CLI start and peak RSS (child processes)", () => benchCli(lib));
  const processRuns = await section("whole processes with run_command (miniclaw run, the library, the bare shell loop)", () => benchProcessRuns(lib));
  const sandbox = await section("the sandbox per command (echo hi under bubblewrap, plain bash -c)", benchSandbox);
  const cache = await section("prompt cache (30-turn session)", () => benchCache(lib));
  const cacheThinking = await section("prompt cache with thinking (30-turn session)", () => benchCache(lib, { thinkingBudget: 2048 }));
  const cacheTtl = await section("prompt cache lifetimes over simulated hours (heartbeats, a 30-turn session)", () => benchCacheTtl(lib));
  const parallelTools = await section("parallel tools (five 1 s calls)", () => benchParallelTools(lib));
  const sessions = await section("sessions (1, 8, 32 MB)", benchSessions);
  const memorySearch = await section("memory search (1,000 and 10,000 notes)", benchMemorySearch);
  const gate = await section("the gate", benchGate);
  const sessionsPg = await section("sessions on PostgreSQL next to files (append, 10,000-record load, turns of 4 processes)", benchSessionsPg);
  const pgLoad = "skipped" in sessionsPg ? { skipped: sessionsPg.skipped } : await section("PostgreSQL under load (issue 34: 1, 2, 4 processes, a hot session, cron at scale)", () => benchPgLoad(PG_LOAD_URL, CRON_SECONDS));
  const measurements: Measurements = { harness, cli, cache, cacheThinking, parallelTools, sessions, memorySearch, gate, sessionsPg, processRuns };
  const rows = [...buildRows(measurements), ...sandboxRows(sandbox), ...cacheTtlRows(cacheTtl), ...pgLoadRows(pgLoad)];
  const durationS = Math.round((performance.now() - started) / 100) / 10;
  process.stdout.write(`${machineLine(machine)}\n\n${formatTable(rows)}\n`);
  await writeFile(RESULTS, `${JSON.stringify({ date: new Date().toISOString(), machine, durationS, rows, ...measurements, sandbox, cacheTtl, pgLoad }, null, 2)}\n`);
  process.stderr.write(`bench: done in ${durationS} s; raw figures in ${RESULTS}\n`);
}

await main();
