// Benchmark of the session store: load time of 1, 8 and 32 MB sessions, and the time of one append.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SessionStore } from "../src/sessions/store.js";
import type { MessageRecord, SessionRecord } from "../src/sessions/records.js";

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
const WORDS = "the session store keeps every message of a turn so that nothing is lost when the process dies while a tool runs".split(" ");

/** A deterministic generator, so every run measures the same files. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function prose(next: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
}

/** A file-like tool result: numbered source lines, 1 to 8 KB. */
function fileContents(next: () => number): string {
  const lines = 20 + Math.floor(next() * 140);
  return Array.from({ length: lines }, (_, i) => `${i + 1}\tconst value${i} = compute("${prose(next, 4)}");`).join("\n");
}

/** One realistic turn: a question, one to three tool calls with their results, an answer. */
function turnRecords(next: () => number, n: number, ts: number): MessageRecord[] {
  const usage = { inputTokens: 40, outputTokens: 300, cacheReadTokens: 20_000 + n * 50, cacheWriteTokens: 800 };
  const id = (kind: string) => `${kind}-${n}-${Math.floor(next() * 1e9).toString(36)}`;
  const records: MessageRecord[] = [{ type: "message", id: id("u"), ts, message: { role: "user", content: prose(next, 30) } }];
  for (let call = 0, calls = 1 + Math.floor(next() * 3); call < calls; call++) {
    const toolId = `toolu_${id("t")}`;
    records.push(
      { type: "message", id: id("a"), ts, usage, model: "claude-sonnet-4-5", stopReason: "tool_use", message: { role: "assistant", content: [{ type: "text", text: prose(next, 25) }, { type: "tool_use", id: toolId, name: "read_file", input: { path: `src/module-${n}-${call}.ts` } }] } },
      { type: "message", id: id("r"), ts, message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolId, content: fileContents(next) }] } },
    );
  }
  records.push({ type: "message", id: id("a"), ts, usage, model: "claude-sonnet-4-5", stopReason: "end_turn", message: { role: "assistant", content: [{ type: "text", text: prose(next, 120) }] } });
  return records;
}

/** The text of a session file of about `bytes` bytes. */
function sessionText(key: string, bytes: number): string {
  const next = random(bytes);
  const header: SessionRecord = { type: "session", version: 1, key, agentId: "main", ts: 0 };
  const parts = [JSON.stringify(header) + "\n"];
  let size = parts[0]!.length;
  for (let n = 0; size < bytes; n++) {
    for (const record of turnRecords(next, n, 1_700_000_000_000 + n * 60_000)) {
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
  const next = random(3);
  const tail: MessageRecord[] = [];
  for (let n = 0; n < 20; n++) tail.push(...turnRecords(next, 1_000_000 + n, 1_800_000_000_000));
  const compaction: SessionRecord = { type: "compaction", id: "compaction-1", ts: 1_800_000_000_000, summary: prose(next, 400), firstKeptId: tail[0]!.id, replacedMessages: 10_000, tokensBefore: 160_000 };
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
    const next = random(7);
    const times: number[] = [];
    for (let i = 0; i < TIMED_APPENDS; i++) {
      const [record] = turnRecords(next, 100_000 + i, Date.now()).slice(2, 3);
      const started = performance.now();
      await store.append("agent:main:bench-8MB", [record!]);
      times.push(performance.now() - started);
    }
    return { loadMs, loadCompacted32MBMs, appendMs: median(times) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
