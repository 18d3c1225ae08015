// Realistic session records for the session benches (files and PostgreSQL): turns of a question, one to three file-sized tool results and an answer.
import type { CompactionRecord, MessageRecord } from "../src/sessions/records.js";

/** One turn's records, and the id of the user message that opens it (where a compaction may keep from). */
export interface BenchTurn {
  firstId: string;
  records: MessageRecord[];
}

const WORDS = "the session store keeps every message of a turn so that nothing is lost when the process dies while a tool runs".split(" ");
const MODEL = "claude-sonnet-4-5";

/** A deterministic generator, so every run measures the same records. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** `words` words of the bench vocabulary. */
export function benchProse(next: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
}

/** A file-like tool result: numbered source lines, 1 to 8 KB. */
function fileContents(next: () => number): string {
  const lines = 20 + Math.floor(next() * 140);
  return Array.from({ length: lines }, (_, i) => `${i + 1}\tconst value${i} = compute("${benchProse(next, 4)}");`).join("\n");
}

/** Turn `n`: a question, one to three read_file calls each with its result, an answer; usage on every response. */
export function benchTurn(next: () => number, n: number, ts: number): BenchTurn {
  const usage = { inputTokens: 40, outputTokens: 300, cacheReadTokens: 20_000 + n * 50, cacheWriteTokens: 800 };
  const id = (kind: string): string => `${kind}-${n}-${Math.floor(next() * 1e9).toString(36)}`;
  const firstId = id("u");
  const records: MessageRecord[] = [{ type: "message", id: firstId, ts, message: { role: "user", content: benchProse(next, 30) } }];
  for (let call = 0, calls = 1 + Math.floor(next() * 3); call < calls; call++) {
    const toolId = `toolu_${id("t")}`;
    const use = { type: "tool_use" as const, id: toolId, name: "read_file", input: { path: `src/module-${n}-${call}.ts` } };
    records.push(
      { type: "message", id: id("a"), ts, usage, model: MODEL, stopReason: "tool_use", message: { role: "assistant", content: [{ type: "text", text: benchProse(next, 25) }, use] } },
      { type: "message", id: id("r"), ts, message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolId, content: fileContents(next) }] } },
    );
  }
  const answer = { type: "text" as const, text: benchProse(next, 120) };
  records.push({ type: "message", id: id("a"), ts, usage, model: MODEL, stopReason: "end_turn", message: { role: "assistant", content: [answer] } });
  return { firstId, records };
}

/** Whole turns until there are at least `minRecords` records (a turn is never cut: the session ends between turns). */
export function benchSession(minRecords: number, seed: number): BenchTurn[] {
  const next = seededRandom(seed);
  const turns: BenchTurn[] = [];
  for (let n = 0, total = 0; total < minRecords; n++) {
    const turn = benchTurn(next, n, 1_700_000_000_000 + n * 60_000);
    turns.push(turn);
    total += turn.records.length;
  }
  return turns;
}

/** A compaction that keeps the last `keptTurns` turns of `turns`: loading reads only those. */
export function compactionKeeping(turns: readonly BenchTurn[], keptTurns: number): CompactionRecord {
  const kept = turns[turns.length - keptTurns]!;
  const replaced = turns.slice(0, turns.length - keptTurns).reduce((sum, turn) => sum + turn.records.length, 0);
  return { type: "compaction", id: "compaction-bench", ts: 1_800_000_000_000, summary: benchProse(seededRandom(3), 400), firstKeptId: kept.firstId, replacedMessages: replaced, tokensBefore: 160_000 };
}
