// The rows of the table from the measurements, each with its target from issue 7; issue 17's PostgreSQL rows, then issue 18's, after them.
import type { CacheBench } from "./cache.js";
import type { CliBench } from "./cli.js";
import type { GateBench } from "./gate.js";
import type { HarnessBench } from "./harness.js";
import type { MemorySearchBench } from "./memory-search.js";
import type { ParallelToolsBench } from "./parallel-tools.js";
import type { ProcessRunsBench } from "./process-runs.js";
import { gateRows, processRunRows } from "./report-18.js";
import type { SessionsBench } from "./sessions.js";
import { LOAD_RECORDS, TIMED_APPENDS, TIMED_LOADS, type Latency, type SessionsPgBench, type SessionsPgMeasured } from "./sessions-pg.js";
import { TURN_PROCESSES, TURN_RUNS, TURNS_PER_PROCESS, type TurnsRate } from "./turns-pg.js";
import { ratio, verdict, type Row } from "./table.js";

/** Everything one run measured. */
export interface Measurements {
  harness: HarnessBench;
  cli: CliBench;
  cache: CacheBench;
  /** The same session with a thinking budget: every response then holds a thinking block, sent back in the tool loops. */
  cacheThinking: CacheBench;
  parallelTools: ParallelToolsBench;
  sessions: SessionsBench;
  memorySearch: MemorySearchBench[];
  gate: GateBench;
  /** Sessions on PostgreSQL next to files, or why not measured. */
  sessionsPg: SessionsPgBench;
  /** Whole processes running run_command: miniclaw run, the library script, the bare shell loop. */
  processRuns: ProcessRunsBench;
}

const ms = (value: number, digits = 1): string => `${value.toFixed(digits)} ms`;
const none = { baseline: "", ratio: "", target: "", verdict: "" };

function against(measurement: string, value: number, base: number, unit: (v: number) => string, name: string, limit?: number): Row {
  const row = { measurement, miniclaw: unit(value), baseline: `${unit(base)} ${name}`, ratio: ratio(value, base) };
  return limit === undefined ? { ...row, target: "", verdict: "" } : { ...row, target: `≤ ${limit}×`, verdict: verdict(value / base <= limit) };
}

function loopRows(m: Measurements): Row[] {
  const { harness, cli } = m;
  const mb = (v: number): string => `${v.toFixed(1)} MB`;
  return [
    against(`Time per model round, ${harness.rounds}-request tool loop (runAgentTurn)`, harness.miniclawMsPerRound, harness.bareMsPerRound, (v) => ms(v, 2), "bare loop", 1.3),
    against("Time per model round, both streaming", harness.miniclawMsPerRound, harness.bareStreamMsPerRound, (v) => ms(v, 2), "bare streaming loop", 1.3),
    against(
      `Time per model round, both streaming the same request (miniclaw's system prompt and ${harness.miniclawTools} tools)`,
      harness.miniclawMsPerRound, harness.bareSameMsPerRound, (v) => ms(v, 2), "bare streaming loop", 1.3,
    ),
    // What separates the first row's loops besides the harness: the request's size, then streaming it.
    against("Time per model round, no harness: the bare loop sending miniclaw's request, not streaming", harness.bareSameCreateMsPerRound, harness.bareMsPerRound, (v) => ms(v, 2), "bare loop"),
    against("Time per model round, no harness: the bare loop streaming miniclaw's request", harness.bareSameMsPerRound, harness.bareMsPerRound, (v) => ms(v, 2), "bare loop"),
    against("Start to first request (miniclaw run hi)", cli.miniclawStartMs, cli.bareStartMs, (v) => ms(v, 0), "bare loop", 1.3),
    against(`Peak RSS, ${harness.rounds}-request turn (miniclaw run)`, cli.miniclawMaxRssMb, cli.bareMaxRssMb, mb, "bare loop", 1.2),
  ];
}

function storeRows(m: Measurements): Row[] {
  const { sessions } = m;
  const search = (n: number): number => m.memorySearch.find((s) => s.notes === n)?.medianMs ?? Number.NaN;
  const first = (n: number, field: "firstColdMs" | "firstWarmMs"): number => m.memorySearch.find((s) => s.notes === n)?.[field] ?? Number.NaN;
  return [
    { measurement: "Session load, 1 MB", miniclaw: ms(sessions.loadMs["1MB"]), ...none },
    { measurement: "Session load, 8 MB", miniclaw: ms(sessions.loadMs["8MB"]), ...none, target: "< 200 ms", verdict: verdict(sessions.loadMs["8MB"] < 200) },
    { measurement: "Session load, 32 MB", miniclaw: ms(sessions.loadMs["32MB"]), ...none },
    { measurement: "Session load, 32 MB compacted near its end", miniclaw: ms(sessions.loadCompacted32MBMs), ...none },
    { measurement: "Session append, one record", miniclaw: ms(sessions.appendMs, 2), ...none },
    { measurement: "Memory search, 1,000 notes", miniclaw: ms(search(1_000), 2), ...none },
    { measurement: "Memory search, 10,000 notes", miniclaw: ms(search(10_000), 2), ...none, target: "< 50 ms", verdict: verdict(search(10_000) < 50) },
    { measurement: "First memory search of a new process, 10,000 notes, no index file yet", miniclaw: ms(first(10_000, "firstColdMs"), 0), ...none },
    { measurement: "First memory search of a new process, 10,000 notes, index file left by the last one", miniclaw: ms(first(10_000, "firstWarmMs"), 0), ...none, target: "< 200 ms", verdict: verdict(first(10_000, "firstWarmMs") < 200) },
  ];
}

/** The names of issue 17's rows, with the sizes measured when there are some. */
function pgRowNames(measured: SessionsPgMeasured | undefined): string[] {
  const records = (measured?.loadRecords ?? LOAD_RECORDS).toLocaleString("en-US");
  const file = measured ? ` (${measured.loadFileMb} MB as a file)` : "";
  const kept = measured ? ` (${measured.compactedKeptRecords} records kept)` : "";
  return [
    `Session append, one record into a held session: PostgreSQL vs files (median, p95 of ${TIMED_APPENDS})`,
    "Session append: PostgreSQL vs files fsynced after each append (as the server commits)",
    `Session load, ${records} records${file}, never compacted: PostgreSQL vs files (median of ${TIMED_LOADS})`,
    `Session load, the same compacted near its end${kept}: PostgreSQL vs files`,
    `Turns, ${TURN_PROCESSES} processes × ${TURNS_PER_PROCESS} on ${TURN_PROCESSES} sessions, one tool round each: PostgreSQL vs files (median of ${TURN_RUNS} runs: turns/s, their time, whole run from spawn)`,
  ];
}

/** Issue 17's rows: PostgreSQL in the miniclaw column, files as the baseline (ratios of times: above 1× is slower). */
function pgRows(pgBench: SessionsPgBench): Row[] {
  if ("skipped" in pgBench) return pgRowNames(undefined).map((measurement) => ({ measurement, miniclaw: `skipped: ${pgBench.skipped}`, ...none }));
  const names = pgRowNames(pgBench);
  const { appendMs: a, loadMs, loadCompactedMs, turns } = pgBench;
  const latency = (l: Latency): string => `${l.medianMs.toFixed(2)} ms (p95 ${l.p95Ms.toFixed(2)})`;
  const rate = (t: TurnsRate): string => `${t.turnsPerSecond.toFixed(1)} turns/s, ${(t.windowMs / 1000).toFixed(1)} s (${(t.wholeRunMs / 1000).toFixed(1)} s)`;
  const row = (measurement: string, miniclaw: string, baseline: string, value: number, base: number): Row => ({ measurement, miniclaw, baseline, ratio: ratio(value, base), target: "", verdict: "" });
  return [
    row(names[0]!, latency(a.postgres), `${latency(a.files)} files`, a.postgres.medianMs, a.files.medianMs),
    row(names[1]!, latency(a.postgres), `${latency(a.filesFsync)} files + fsync`, a.postgres.medianMs, a.filesFsync.medianMs),
    row(names[2]!, ms(loadMs.postgres), `${ms(loadMs.files)} files`, loadMs.postgres, loadMs.files),
    row(names[3]!, ms(loadCompactedMs.postgres), `${ms(loadCompactedMs.files)} files`, loadCompactedMs.postgres, loadCompactedMs.files),
    row(names[4]!, rate(turns.postgres), `${rate(turns.files)} files`, turns.postgres.windowMs, turns.files.windowMs),
  ];
}

/** The table's rows, in the order of issue 7 (the gate's rows excepted), then issue 17's, then issue 18's (the gate's among them). */
export function buildRows(m: Measurements): Row[] {
  const { cache, cacheThinking, parallelTools: p } = m;
  const loop = loopRows(m);
  const cacheRow = (c: CacheBench, what: string): Row => ({
    measurement: `Prompt cache read share, ${c.turns}-turn session with tools${what}`,
    miniclaw: `${c.readSharePct.toFixed(1)} %`,
    baseline: `${c.ceilingPct.toFixed(1)} % ceiling`,
    ratio: "",
    target: "≥ 90 %",
    verdict: verdict(c.readSharePct >= 90),
  });
  const parallelRow: Row = {
    measurement: `${p.calls} read-only tool calls of ${p.callMs / 1000} s in one response`,
    miniclaw: `${(p.parallelMs / 1000).toFixed(2)} s parallel`,
    baseline: `${(p.serialMs / 1000).toFixed(2)} s serial`,
    ratio: ratio(p.parallelMs, p.serialMs),
    target: `≈ ${p.callMs / 1000} s`,
    verdict: verdict(p.parallelMs < 1.5 * p.callMs),
  };
  return [...loop, cacheRow(cache, ""), cacheRow(cacheThinking, `, thinking on (${cacheThinking.thinking}-token budget)`), ...storeRows(m), parallelRow, ...pgRows(m.sessionsPg), ...processRunRows(m.processRuns), ...gateRows(m.gate)];
}
