// Benchmark of memory_search: median latency over 1,000 and 10,000 generated notes, index already built.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { MemoryStore } from "../src/memory/store.js";

/** One measured size. */
export interface MemorySearchBench {
  notes: number;
  /** Median wall time of one `search()` call, in milliseconds. */
  medianMs: number;
}

const SIZES = [1_000, 10_000];
const WARMUP_SEARCHES = 5;
const TIMED_SEARCHES = 25;
const VOCABULARY_WORDS = 8_000;
const WORDS_PER_NOTE = 150;
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

async function writeNotes(dir: string, count: number): Promise<void> {
  const next = random(count);
  const real = ["deployment", "schedule", "friday", "coffee", "travel", "lisbon", "budget", "review", "project", "user"];
  const vocabulary = [...real, ...Array.from({ length: VOCABULARY_WORDS }, (_, i) => syntheticWord(i))];
  for (let i = 0; i < count; i++) {
    // Squaring skews toward the front of the vocabulary, roughly as word frequencies are.
    const words = Array.from({ length: WORDS_PER_NOTE }, () => vocabulary[Math.floor(next() ** 2 * vocabulary.length)]);
    if (i === Math.floor(count / 2)) words.push("kelvora");
    await writeFile(join(dir, `note-${i}.md`), `# Note ${i}\n\n${words.join(" ")}\n`);
  }
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
    for (let i = 0; i < WARMUP_SEARCHES; i++) await store.search(QUERIES[i % QUERIES.length] ?? "");
    const times: number[] = [];
    for (let i = 0; i < TIMED_SEARCHES; i++) {
      const started = performance.now();
      await store.search(QUERIES[i % QUERIES.length] ?? "");
      times.push(performance.now() - started);
    }
    return { notes: count, medianMs: Math.round(median(times) * 100) / 100 };
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Generates 1,000 and then 10,000 notes in a temporary folder, builds the index with a
 * first search, warms up, and reports the median latency of further searches. Cleans up.
 */
export async function benchMemorySearch(): Promise<MemorySearchBench[]> {
  const results: MemorySearchBench[] = [];
  for (const size of SIZES) results.push(await measure(size));
  return results;
}
