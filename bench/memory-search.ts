// Benchmark of memory_search over 1,000 and 10,000 generated notes: the first search of a new process, cold and warm, and later searches.
import { execFile } from "node:child_process";
import { mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { INDEX_FILE_NAME } from "../src/memory/index-file.js";
import { MemoryStore } from "../src/memory/store.js";

/** One measured size. */
export interface MemorySearchBench {
  notes: number;
  /** Median wall time of one `search()` call once the index is in memory, in milliseconds. */
  medianMs: number;
  /** First `search()` of a new process with no index file: every note read and indexed (median of runs, ms). */
  firstColdMs: number;
  /** First `search()` of a new process with the index file a previous process left, notes unchanged (median of runs, ms). */
  firstWarmMs: number;
  /** Size of the index file beside the notes, in bytes. */
  indexFileBytes: number;
}

const SIZES = [1_000, 10_000];
const WARMUP_SEARCHES = 5;
const TIMED_SEARCHES = 25;
const VOCABULARY_WORDS = 8_000;
const WORDS_PER_NOTE = 150;
const FIRST_SEARCH_RUNS = 5;
// Notes as a person's memory holds them: last written an hour ago, not in the same second as the search.
const NOTE_AGE_MS = 3_600_000;
const QUERIES = ["deployment schedule friday", "kelvora", "user prefers dark roast coffee", "travel plans lisbon", "project budget review"];

/** A deterministic generator, so every run measures the same notes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function syntheticWord(index: number): string {
  const syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vor", "el", "din", "qua", "pe", "zo", "ri", "an", "gul"];
  let word = "";
  for (let n = index + 1; n > 0; n = Math.floor(n / syllables.length)) word += syllables[n % syllables.length];
  return word;
}

/** Writes `count` generated notes into `dir`, backdated an hour; one of them holds the rare word "kelvora". */
export async function writeNotes(dir: string, count: number): Promise<void> {
  const next = random(count);
  const real = ["deployment", "schedule", "friday", "coffee", "travel", "lisbon", "budget", "review", "project", "user"];
  const vocabulary = [...real, ...Array.from({ length: VOCABULARY_WORDS }, (_, i) => syntheticWord(i))];
  for (let i = 0; i < count; i++) {
    // Squaring skews toward the front of the vocabulary, roughly as word frequencies are.
    const words = Array.from({ length: WORDS_PER_NOTE }, () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)]);
    if (i === Math.floor(count / 2)) words.push("kelvora");
    await writeFile(join(dir, `note-${i}.md`), `# Note ${i}\n\n${words.join(" ")}\n`);
    const written = new Date(Date.now() - NOTE_AGE_MS);
    await utimes(join(dir, `note-${i}.md`), written, written);
  }
}

// Run in a new Node process, so the figure includes cold code (no JIT warmth) as a fresh `miniclaw run` has it;
// the import of the store is not timed, the construction and the first search are, then the index file is written.
const FIRST_SEARCH_CHILD = `
  const { performance } = await import("node:perf_hooks");
  const { MemoryStore } = await import(process.env.STORE_MODULE);
  const started = performance.now();
  const store = new MemoryStore(process.env.MEMORY_DIR);
  const results = await store.search(process.env.QUERY);
  const ms = performance.now() - started;
  await store.flush();
  store.close();
  process.stdout.write(JSON.stringify({ ms, results: results.length }));
`;

async function firstSearchInNewProcess(dir: string): Promise<number> {
  const env = { ...process.env, MEMORY_DIR: dir, QUERY: QUERIES[0] ?? "", STORE_MODULE: new URL("../src/memory/store.ts", import.meta.url).href };
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", FIRST_SEARCH_CHILD], { env, maxBuffer: 1 << 20 });
  const { ms, results } = JSON.parse(stdout) as { ms: number; results: number };
  if (results === 0) throw new Error(`memory bench: the first search found nothing in ${dir}`);
  return ms;
}

async function measureFirstSearch(dir: string, warm: boolean): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < FIRST_SEARCH_RUNS; i++) {
    if (!warm) await rm(join(dir, INDEX_FILE_NAME), { force: true });
    times.push(await firstSearchInNewProcess(dir));
  }
  return Math.round(median(times) * 10) / 10;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function measure(count: number): Promise<MemorySearchBench> {
  const dir = await mkdtemp(join(tmpdir(), "miniclaw-bench-memory-"));
  const store = new MemoryStore(dir);
  try {
    await writeNotes(dir, count);
    const firstColdMs = await measureFirstSearch(dir, false);
    const firstWarmMs = await measureFirstSearch(dir, true);
    const indexFileBytes = (await stat(join(dir, INDEX_FILE_NAME))).size;
    for (let i = 0; i < WARMUP_SEARCHES; i++) await store.search(QUERIES[i % QUERIES.length] ?? "");
    const times: number[] = [];
    for (let i = 0; i < TIMED_SEARCHES; i++) {
      const started = performance.now();
      await store.search(QUERIES[i % QUERIES.length] ?? "");
      times.push(performance.now() - started);
    }
    return { notes: count, medianMs: Math.round(median(times) * 100) / 100, firstColdMs, firstWarmMs, indexFileBytes };
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Generates 1,000 and then 10,000 notes in a temporary folder; times the first search of a
 * new process without the index file (cold, each run deletes it) and with the file the
 * previous process wrote (warm); then, in this process, warms up and reports the median
 * latency of further searches. Cleans up.
 */
export async function benchMemorySearch(): Promise<MemorySearchBench[]> {
  const results: MemorySearchBench[] = [];
  for (const size of SIZES) results.push(await measure(size));
  return results;
}
