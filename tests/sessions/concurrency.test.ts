import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { SessionStore } from "../../src/sessions/store.js";
import { parseRecordLine } from "../../src/sessions/records.js";
import type { MessageParam } from "../../src/types.js";
import { nextRequestProblems } from "../helpers/session-validity.js";
import { startChild } from "./child-process.js";
import { tempDir } from "./session-builders.js";

const KEY = "agent:main:main";
const TURNS = 20;
/** Kills per `npm test`; `SOAK_SESSION_KILLS` raises it for a longer run. */
const KILLS = Number(process.env["SOAK_SESSION_KILLS"] ?? 10);

/** The "<tag> turn <n>" label of the first text in a message. */
function label(message: MessageParam | undefined): string {
  const content = message?.content;
  const text = typeof content === "string" ? content : JSON.stringify(content);
  return /(\w+ turn \d+)/.exec(text ?? "")?.[1] ?? "?";
}

describe("two processes on one session", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("leave complete, non-interleaved turns when each runs 20 turns under the lock", async () => {
    const children = ["alpha", "beta"].map((tag) => startChild("turns.mjs", [dir, KEY, tag, String(TURNS)]));
    const exits = await Promise.all(children.map((child) => child.exited));
    expect(exits.map((e) => [e.code, e.stderr])).toEqual([[0, ""], [0, ""]]);
    const session = await new SessionStore(dir).load(KEY);
    expect(session.warnings).toEqual([]);
    expect(session.records.some((r) => r.synthetic)).toBe(false);
    expect(session.messages).toHaveLength(2 * TURNS * 4);
    const turns = new Set<string>();
    for (let i = 0; i < session.messages.length; i += 4) {
      const group = session.messages.slice(i, i + 4);
      expect(group.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
      expect(new Set(group.map(label)).size).toBe(1);
      turns.add(label(group[0]));
    }
    expect(turns.size).toBe(2 * TURNS);
    expect(nextRequestProblems(session.messages)).toEqual([]);
  });
});

describe("a process killed with SIGKILL during turns", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it(`never leaves a session that fails to load or to make a valid next request (${KILLS} kills)`, async () => {
    const store = new SessionStore(dir);
    for (let kill = 0; kill < KILLS; kill++) {
      const child = startChild("turns.mjs", [dir, KEY, `k${kill}`, "0"]);
      await child.waitFor("ready");
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 60));
      child.process.kill("SIGKILL");
      const exit = await child.exited;
      expect(exit.signal, exit.stderr).toBe("SIGKILL");
      const session = await store.load(KEY);
      expect(nextRequestProblems(session.messages), `after kill ${kill}`).toEqual([]);
      expect(session.warnings.filter((w) => /corrupt|torn/.test(w))).toEqual([]);
    }
    const release = await store.lock(KEY);
    const repaired = await store.load(KEY);
    await release();
    expect(nextRequestProblems(repaired.messages)).toEqual([]);
    const text = await readFile(store.fileFor(KEY), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    for (const line of text.split("\n").filter(Boolean)) expect(parseRecordLine(line).ok).toBe(true);
    expect((await store.load(KEY)).messages).toEqual(repaired.messages);
  }, 60_000);
});
