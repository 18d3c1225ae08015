import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readLoadRegion } from "./whole-text-region.js";
import { readLoadRegionFromFile } from "../../src/sessions/session-file.js";
import type { SessionRecord } from "../../src/sessions/records.js";
import { tempDir } from "./session-builders.js";

type Item =
  | { kind: "message"; size: number; mentionsCompaction: boolean }
  | { kind: "compaction"; back: number }
  | { kind: "corrupt" }
  | { kind: "blank" };

const item: fc.Arbitrary<Item> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("message" as const), size: fc.integer({ min: 0, max: 400 }), mentionsCompaction: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("compaction" as const), back: fc.integer({ min: -1, max: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "corrupt" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "blank" as const }) },
);

/** The text of a file made of `items`; compactions keep the message `back` messages before them (-1: a missing id). */
function fileText(items: Item[], withHeader: boolean, torn: boolean): string {
  const ids: string[] = [];
  const lines: string[] = withHeader ? [JSON.stringify({ type: "session", version: 1, key: "k", agentId: "main", ts: 1 })] : [];
  items.forEach((entry, i) => {
    if (entry.kind === "blank") lines.push("");
    if (entry.kind === "corrupt") lines.push('{"type":"message","id":"bad');
    if (entry.kind === "message") {
      const id = `m${i}-é`;
      ids.push(id);
      const content = entry.mentionsCompaction
        ? [{ type: "tool_use", id: `t${i}`, name: "x", input: { mode: "compaction", pad: "ü".repeat(entry.size) } }]
        : "ü".repeat(entry.size) + "x";
      const record: SessionRecord = { type: "message", id, ts: i, message: { role: i % 2 ? "assistant" : "user", content } } as SessionRecord;
      lines.push(JSON.stringify(record));
    }
    if (entry.kind === "compaction") {
      const firstKeptId = entry.back < 0 ? "missing" : (ids[Math.max(0, ids.length - 1 - entry.back)] ?? "missing");
      lines.push(JSON.stringify({ type: "compaction", id: `c${i}`, ts: i, summary: "s", firstKeptId, replacedMessages: 1, tokensBefore: 1 }));
    }
  });
  const text = lines.join("\n") + "\n";
  return torn ? text + '{"type":"message","id":"to' : text;
}

describe("reading the tail of a session file", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ dir, cleanup } = await tempDir()));
  afterAll(() => cleanup());

  it("reads exactly what reading the whole text reads, whatever the chunk size", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 40 }), fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 700 }), async (items, withHeader, torn, chunkBytes) => {
        const file = join(dir, `f${n++}.jsonl`);
        const text = fileText(items, withHeader, torn);
        await writeFile(file, text);
        expect(await readLoadRegionFromFile(file, { chunkBytes })).toEqual(readLoadRegion(text, file));
      }),
      { numRuns: 300 },
    );
  });

  it("finds the compaction and its kept message across chunk boundaries in a large file", async () => {
    const items: Item[] = [...Array.from({ length: 3_000 }, (): Item => ({ kind: "message", size: 300, mentionsCompaction: false })), { kind: "compaction", back: 1_500 }];
    const file = join(dir, "large.jsonl");
    const text = fileText(items, true, false);
    await writeFile(file, text);
    const region = await readLoadRegionFromFile(file);
    expect(region?.records).toHaveLength(1_501);
    expect(region).toEqual(readLoadRegion(text, file));
  });

  it("resolves to undefined for a missing file", async () => {
    expect(await readLoadRegionFromFile(join(dir, "none.jsonl"))).toBeUndefined();
  });

  it("refuses a FIFO in the file's place instead of waiting for a writer that never comes", async () => {
    const fifo = join(dir, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    await expect(readLoadRegionFromFile(fifo)).rejects.toThrow("not a regular file");
  });
});
