import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import type { SessionRecord } from "../../src/sessions/records.js";
import { SessionStore, type LoadOptions, type SessionStorage } from "../../src/sessions/store.js";
import type { AgentEvent } from "../../src/types.js";
import { messageProblems } from "../helpers/session-validity.js";
import { TEST_AGENT, tempWorkspace, turnOptions, scriptedModelPerTest, eventTypes } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();
const KEY = "agent:main:failing";
const DISK_FULL = "ENOSPC: no space left on device, write";

/** A file store whose writes or reads fail when `fails` says so, as a full or broken disk would. */
function failingStore(dir: string, fails: { append?: (records: SessionRecord[], call: number) => boolean; load?: boolean }): SessionStorage {
  const real = new SessionStore(dir);
  let appends = 0;
  return {
    lock: (key) => real.lock(key),
    load: async (key: string, options?: LoadOptions) => {
      if (fails.load) throw new Error("EIO: i/o error, read");
      return real.load(key, options);
    },
    append: async (key, records) => {
      if (fails.append?.(records, ++appends)) throw new Error(DISK_FULL);
      return real.append(key, records);
    },
  };
}

/** Runs a turn that asks for one tool round, against `store`; the model's padding makes compaction due at once. */
async function turnWith(store: SessionStorage, ws: string, compactAt = 1_000_000) {
  const m = await scripted([
    { match: { system: /summarise an assistant's working session/ }, reply: "SUMMARY" },
    { match: { toolResult: {} }, reply: "done" },
    { reply: { toolUses: [{ name: "upper", input: { text: "a" } }] } },
  ]);
  const events: AgentEvent[] = [];
  const result = await runAgentTurn(KEY, "go", TEST_AGENT, turnOptions(m, ws, events, { store, compactAt }));
  return { result, events };
}

/** The session as the next turn loads it, on a healthy disk: every message valid for the API. */
async function expectValidSession(dir: string): Promise<void> {
  const session = await new SessionStore(dir).load(KEY, { mode: "turn-start" });
  expect(messageProblems([...session.messages, { role: "user", content: "next" }])).toEqual([]);
}

describe("a turn never rejects once the session is locked", () => {
  it("ends with error, one line and turn_end when a message append fails (disk full)", async () => {
    const ws = await tempWorkspace();
    const dir = join(ws, "sessions");
    const { result, events } = await turnWith(failingStore(dir, { append: (_records, call) => call >= 2 }), ws);
    expect(result.stopReason).toBe("error");
    expect(result.error).toBe(`could not write the session: ${DISK_FULL}`);
    expect(eventTypes(events).at(-1)).toBe("turn_end");
    expect(events.at(-1)).toMatchObject({ type: "turn_end", stopReason: "error" });
    await expectValidSession(dir);
  });

  it("ends with error when the user's own message cannot be written, before any request", async () => {
    const ws = await tempWorkspace();
    const dir = join(ws, "sessions");
    const { result, events } = await turnWith(failingStore(dir, { append: () => true }), ws);
    expect(result).toMatchObject({ stopReason: "error", iterations: 0, error: `could not write the session: ${DISK_FULL}` });
    expect(eventTypes(events)).toEqual(["turn_start", "turn_end"]);
  });

  it("goes on without compacting when compaction's append fails, and says so", async () => {
    const ws = await tempWorkspace();
    const dir = join(ws, "sessions");
    const healthy = new SessionStore(dir);
    for (let i = 0; i < 3; i++) await healthy.append(KEY, [{ type: "message", id: `u${i}`, ts: i, message: { role: "user", content: `old question ${i} ${"pad ".repeat(300)}` } }, { type: "message", id: `a${i}`, ts: i, message: { role: "assistant", content: "old answer" } }]);
    const store = failingStore(dir, { append: (records) => records.some((r) => r.type === "compaction") });
    const { result, events } = await turnWith(store, ws, 500);
    expect(result.stopReason).toBe("end_turn");
    const warnings = events.flatMap((e) => (e.type === "warning" ? [e.message] : []));
    expect(warnings).toContainEqual(expect.stringContaining(`compaction skipped: the compaction could not be written: ${DISK_FULL}`));
    expect(events.filter((e) => e.type === "compaction")).toEqual([]);
    await expectValidSession(dir);
  });

  it("ends with error, turn_start and turn_end when the session cannot be read, and releases the lock", async () => {
    const ws = await tempWorkspace();
    const dir = join(ws, "sessions");
    const { result, events } = await turnWith(failingStore(dir, { load: true }), ws);
    expect(result).toMatchObject({ stopReason: "error", error: "could not read the session: EIO: i/o error, read" });
    expect(eventTypes(events)).toEqual(["turn_start", "turn_end"]);
    const again = await turnWith(new SessionStore(dir), ws);
    expect(again.result.stopReason).toBe("end_turn");
  });
});
