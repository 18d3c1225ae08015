// The table rows of the PostgreSQL load bench (issue 34): scale against files, the hot session, cron at scale, connections.
import type { PgLoadBench, Spread } from "./pg-load.js";
import { HOT_PROCESSES, HOT_TURNS_EACH, LOAD_LANES, LOAD_SESSIONS, LOAD_TURNS } from "./pg-load.js";
import { ratio, verdict, type Row } from "./table.js";

const spread = (s: Spread): string => `${s.medianMs.toFixed(1)} ms (p95 ${s.p95Ms.toFixed(1)})`;
const plain = (measurement: string, miniclaw: string, target = "", holds?: boolean): Row => ({ measurement, miniclaw, baseline: "", ratio: "", target, verdict: holds === undefined ? "" : verdict(holds) });

/** The rows of `bench`, or one row saying why it was skipped. */
export function pgLoadRows(bench: PgLoadBench | { skipped: string }): Row[] {
  if ("skipped" in bench) return [plain("PostgreSQL load (issue 34)", `skipped: ${bench.skipped}`)];
  const scale = bench.scale.flatMap(({ processes, postgres: p, files: f, overheadMs }): Row[] => [
    {
      measurement: `${LOAD_SESSIONS} sessions × ${LOAD_TURNS} turns (one tool round), ${processes} process${processes > 1 ? "es" : ""} × ${LOAD_LANES} sessions at once: turns/s`,
      miniclaw: `${p.turnsPerSecond.toFixed(1)} turns/s`,
      baseline: `${f.turnsPerSecond.toFixed(1)} turns/s files`,
      ratio: ratio(f.turnsPerSecond, p.turnsPerSecond),
      target: "",
      verdict: "",
    },
    { measurement: `… time per turn (${processes} proc.), per-turn overhead ${overheadMs.toFixed(1)} ms`, miniclaw: spread(p.turnMs), baseline: `${spread(f.turnMs)} files`, ratio: ratio(p.turnMs.medianMs, f.turnMs.medianMs), target: "", verdict: "" },
    plain(`… peak connections of one process (${processes} proc.)`, `${p.peakConnections}`, `≤ ${bench.poolSizes.pool + bench.poolSizes.turns} (pools)`, p.peakConnections <= bench.poolSizes.pool + bench.poolSizes.turns),
  ]);
  const { hot, cron } = bench;
  return [
    ...scale,
    plain("Records lost / turns interleaved, all load runs", `${bench.lostRecords} / ${bench.interleavings}`, "0 / 0", bench.lostRecords === 0 && bench.interleavings === 0),
    plain(`Hot session: ${HOT_PROCESSES * HOT_TURNS_EACH} turns on one key from ${HOT_PROCESSES} processes, time per turn`, spread(hot.turnMs)),
    plain("… wait per turn (its time less an uncontended turn's)", spread(hot.waitMs)),
    plain("… turns stored, lost, each process's in order", `${hot.turns}, ${hot.lost}, ${hot.inOrder ? "yes" : "NO"}`, `${HOT_PROCESSES * HOT_TURNS_EACH}, 0, yes`, hot.turns === HOT_PROCESSES * HOT_TURNS_EACH && hot.lost === 0 && hot.inOrder),
    plain(
      `Cron: ${cron.jobs} jobs every ${cron.everySeconds} s across ${cron.workers} workers for ${cron.windowSeconds} s: ticks, runs, ticks run twice, skipped`,
      `${cron.ticks}, ${cron.runs}, ${cron.duplicates}, ${cron.skipped}`,
      "runs = ticks, 0 twice",
      cron.duplicates === 0 && cron.runs === cron.ticks,
    ),
    plain("… start delay after the tick", spread(cron.startDelayMs)),
    plain("… runs per worker", cron.perWorker.join(", ")),
  ];
}
