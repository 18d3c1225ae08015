// Timing helpers of the bench: medians, and interleaved timed runs after a warm-up.
import { performance } from "node:perf_hooks";

/** The median of some numbers (NaN for none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The nearest-rank percentile of `values` at `share` (0.95: p95); NaN for none. */
export function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? Number.NaN;
}

/** Rounds to `digits` decimals, for the table and results.json. */
export function round(value: number, digits = 2): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/**
 * Runs each contender `warmup` times, then `runs` times each, interleaved (a, b, a, b, ...)
 * so that a slower stretch of the machine hits them alike. Resolves to the wall
 * times in milliseconds of the timed runs, by contender.
 */
export async function timeInterleaved<K extends string>(
  contenders: Record<K, () => Promise<unknown>>,
  { warmup, runs }: { warmup: number; runs: number },
): Promise<Record<K, number[]>> {
  const names = Object.keys(contenders) as K[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < warmup; i++) for (const name of names) await contenders[name]();
  for (let i = 0; i < runs; i++) {
    for (const name of names) {
      const started = performance.now();
      await contenders[name]();
      times[name].push(performance.now() - started);
    }
  }
  return times;
}
