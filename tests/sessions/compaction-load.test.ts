import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFile } from "node:fs/promises";
import { SessionStore } from "../../src/sessions/store.js";
import { SUMMARY_PREFIX, SUMMARY_SUFFIX } from "../../src/sessions/session-handle.js";
import type { CompactionRecord } from "../../src/sessions/records.js";
import { nextRequestProblems } from "../helpers/session-validity.js";
import { header, lines, tempDir, turn } from "./session-builders.js";

const KEY = "agent:main:main";

function compaction(firstKeptId: string, summary: string): CompactionRecord {
  return { type: "compaction", id: `c-${summary}`, ts: 5_000, summary, firstKeptId, replacedMessages: 4, tokensBefore: 1234 };
}

describe("loading a compacted session", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let store: SessionStore;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    store = new SessionStore(dir);
  });
  afterEach(() => cleanup());

  it("loads from the last compaction, the summary merged before the first kept user message", async () => {
    const [t1, t2, t3, t4] = [turn(1), turn(2), turn(3), turn(4)];
    const first = compaction(t2[0]!.id, "first");
    const last = compaction(t3[0]!.id, "second");
    await writeFile(store.fileFor(KEY), lines([header(KEY), ...t1, ...t2, first, ...t3, last, ...t4]));
    const session = await store.load(KEY);
    expect(session.compaction).toEqual(last);
    expect(session.records).toEqual([...t3, ...t4]);
    expect(session.messageOffset).toBe(0);
    expect(session.messages[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: SUMMARY_PREFIX + "second" + SUMMARY_SUFFIX },
        { type: "text", text: "question 3" },
      ],
    });
    expect(session.messages.slice(1)).toEqual([...t3, ...t4].slice(1).map((r) => r.message));
    expect(nextRequestProblems(session.messages)).toEqual([]);
  });

  it("falls back to the messages after the compaction when its first kept message is gone, with a warning", async () => {
    const [t1, t2] = [turn(1), turn(2)];
    await writeFile(store.fileFor(KEY), lines([header(KEY), ...t1, compaction("missing-id", "s"), ...t2]));
    const session = await store.load(KEY);
    expect(session.records).toEqual(t2);
    expect(session.warnings).toEqual([expect.stringMatching(/:6: the first kept message missing-id .* not found/)]);
  });

  it("shows from the last compaction on, or every record with all", async () => {
    const [t1, t2] = [turn(1), turn(2)];
    const c = compaction(t2[0]!.id, "s");
    const all = [header(KEY), ...t1, ...t2, c];
    await writeFile(store.fileFor(KEY), lines(all));
    expect(await store.show(KEY)).toEqual([header(KEY), c, ...t2]);
    expect(await store.show(KEY, { all: true })).toEqual(all);
    await expect(store.show("agent:main:nope")).rejects.toThrow(/no session agent:main:nope/);
  });

});
