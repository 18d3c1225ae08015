// Benchmark of the session store: load time of 1, 8 and 32 MB sessions, and the time of one append.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SessionStore } from "../src/sessions/store.js";
import type { MessageRecord, SessionRecord } from "../src/sessions/records.js";
import { benchProse, benchTurn, seededRandom } from "./records.js";

/** What `benchSessions` measures, in milliseconds (medians). */
export interface SessionsBench {
  /** Sessions never compacted: every line is read. */
  loadMs: Record<"1MB" | "8MB" | "32MB", number>;
  /** The 32 MB session after a compaction near its end: only the kept tail is parsed. */
  loadCompacted32MBMs: number;
  appendMs: number;
}

const SIZES = { "1MB": 1 << 20, "8MB": 8 << 20, "32MB": 32 << 20 } as const;
const WARMUP_LOADS = 1;
const TIMED_LOADS = 5;
const TIMED_APPENDS = 50;
/** The text of a session file of about `bytes` bytes. */
function sessionText(key: string, bytes: number): string {
  const next = seededRandom(bytes);
  const header: SessionRecord = { type: "session", version: 1, key, agentId: "main", ts: 0 };
  const parts = [JSON.stringify(header) + "\n"];
  let size = parts[0]!.length;
  for (let n = 0; size < bytes; n++) {
    for (const record of benchTurn(next, n, 1_700_000_000_000 + n * 60_000).records) {
      const line = JSON.stringify(record) + "\n";
      parts.push(line);
      size += line.length;
    }
  }
  return parts.join("");
}

/** A session of about `bytes` whose last compaction keeps its last 20 turns. */
function compactedText(key: string, bytes: number): string {
  const text = sessionText(key, bytes);
  const next = seededRandom(3);
  const tail: MessageRecord[] = [];
  for (let n = 0; n < 20; n++) tail.push(...benchTurn(next, 1_000_000 + n, 1_800_000_000_000).records);
  const compaction: SessionRecord = { type: "compaction", id: "compaction-1", ts: 1_800_000_000_000, summary: benchProse(next, 400), firstKeptId: tail[0]!.id, replacedMessages: 10_000, tokensBefore: 160_000 };
  return text + [...tail, compaction].map((record) => JSON.stringify(record) + "\n").join("");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timeLoad(store: SessionStore, key: string): Promise<number> {
  for (let i = 0; i < WARMUP_LOADS; i++) await store.load(key);
  const times: number[] = [];
  for (let i = 0; i < TIMED_LOADS; i++) {
    const started = performance.now();
    await store.load(key);
    times.push(performance.now() - started);
  }
  return median(times);
}

/**
 * Generates sessions of 1, 8 and 32 MB (text, tool calls, file-sized tool results)
 * in a temp folder and measures the median `load` after a warm-up (also of the
 * 32 MB one once compacted), and the median `append` of one tool-result record to
 * the 8 MB session. Target: 8 MB in < 200 ms.
 */
export async function benchSessions(): Promise<SessionsBench> {
  const dir = await mkdtemp(join(tmpdir(), "miniclaw-bench-sessions-"));
  try {
    const store = new SessionStore(dir);
    const loadMs = { "1MB": 0, "8MB": 0, "32MB": 0 };
    for (const [label, bytes] of Object.entries(SIZES) as Array<[keyof typeof SIZES, number]>) {
      const key = `agent:main:bench-${label}`;
      await writeFile(store.fileFor(key), sessionText(key, bytes));
      loadMs[label] = await timeLoad(store, key);
    }
    const compacted = "agent:main:bench-compacted";
    await writeFile(store.fileFor(compacted), compactedText(compacted, SIZES["32MB"]));
    const loadCompacted32MBMs = await timeLoad(store, compacted);
    const next = seededRandom(7);
    const times: number[] = [];
    for (let i = 0; i < TIMED_APPENDS; i++) {
      const [record] = benchTurn(next, 100_000 + i, Date.now()).records.slice(2, 3);
      const started = performance.now();
      await store.append("agent:main:bench-8MB", [record!]);
      times.push(performance.now() - started);
    }
    return { loadMs, loadCompacted32MBMs, appendMs: median(times) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
