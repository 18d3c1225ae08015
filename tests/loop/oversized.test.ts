// No message can break a session: one too large for the window is refused before it is stored, and a session
// that already holds more than one summary request can carry still compacts, every request within the window.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { SessionStore } from "../../src/sessions/store.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { TEST_AGENT, eventTypes, tempWorkspace, turnOptions } from "../helpers/turn.js";

const KEY = "agent:main:big";
const WINDOW = 200_000;
const isSummary = (body: { system?: unknown }): boolean => /summarise an assistant/.test(JSON.stringify(body.system ?? ""));

let model: ScriptedModel | undefined;
afterEach(async () => {
  // A request past the window would be refused by the server (recorded in `rejected`): none may be sent.
  expect(model?.rejected.map((r) => r.error) ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

/** A scripted model with the real API's 200k-token window, answering summaries and turns. */
async function windowedModel(): Promise<ScriptedModel> {
  model = await startScriptedModel(
    [
      { match: { system: /summarise an assistant's working session/ }, reply: "SUMMARY so far" },
      { reply: "fine" },
    ],
    { contextWindow: WINDOW },
  );
  return model;
}

/** Writes a session file as an older version (or an import) could have left it. */
async function writeSession(ws: string, messages: Array<{ role: "user" | "assistant"; text: string }>): Promise<void> {
  await mkdir(join(ws, "sessions"), { recursive: true });
  const lines = [{ type: "session", version: 1, key: KEY, agentId: "main", ts: 1 }, ...messages.map((m, i) => ({ type: "message", id: `m${i}`, ts: i + 2, message: { role: m.role, content: [{ type: "text", text: m.text }] } }))];
  await writeFile(new SessionStore(join(ws, "sessions")).fileFor(KEY), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
}

describe("a message too large for the model's window", () => {
  it("is refused before it is stored, with one line saying how large it is and what fits; the session goes on", async () => {
    const m = await windowedModel();
    const ws = await tempWorkspace();
    await runAgentTurn(KEY, "hello", TEST_AGENT, turnOptions(m, ws));
    const file = new SessionStore(join(ws, "sessions")).fileFor(KEY);
    const before = await readFile(file, "utf8");
    const events: AgentEvent[] = [];
    const result = await runAgentTurn(KEY, "x".repeat(1_000_000), TEST_AGENT, turnOptions(m, ws, events));
    expect(result.stopReason).toBe("error");
    expect(result.error).toMatch(/^the message is too large: about 25\d{4} tokens \(1000\d{3} characters\), and at most about 1\d{5} tokens fit the model's 200000-token window/);
    expect(result.error).not.toContain("\n");
    expect(eventTypes(events)).toEqual(["turn_start", "turn_end"]);
    expect(m.requests).toHaveLength(1);
    expect(await readFile(file, "utf8")).toBe(before);
    const next = await runAgentTurn(KEY, "and now?", TEST_AGENT, turnOptions(m, ws));
    expect(next.stopReason).toBe("end_turn");
    expect(JSON.stringify(m.requests.at(-1)!.body).length).toBeLessThan(10_000);
  });
});

describe("a session too large to summarise in one request", () => {
  it("compacts anyway, a huge old message quoted by its head and tail, every request within the window", async () => {
    const m = await windowedModel();
    const ws = await tempWorkspace();
    await writeSession(ws, [
      { role: "user", text: "hello" },
      { role: "assistant", text: "hi" },
      { role: "user", text: "y".repeat(1_000_000) },
      { role: "assistant", text: "(miniclaw stopped this turn: the conversation no longer fits)" },
    ]);
    const events: AgentEvent[] = [];
    const result = await runAgentTurn(KEY, "what now?", TEST_AGENT, turnOptions(m, ws, events));
    expect(result.stopReason).toBe("end_turn");
    expect(events.filter((e) => e.type === "compaction")).toHaveLength(1);
    const summaries = m.requests.filter((r) => isSummary(r.body));
    expect(summaries).toHaveLength(1);
    expect(JSON.stringify(summaries[0]!.body)).toContain("characters of this message left out");
    expect(JSON.stringify(m.requests.at(-1)!.body.messages)).toContain("SUMMARY so far");
  });

  it("summarises in groups that each fit when the transcript passes the window, each updating the summary", async () => {
    const m = await windowedModel();
    const ws = await tempWorkspace();
    const turns = Array.from({ length: 40 }, (_, i) => [
      { role: "user" as const, text: `question ${i} ` + "z".repeat(39_000) },
      { role: "assistant" as const, text: `answer ${i}` },
    ]).flat();
    await writeSession(ws, turns);
    expect((await stat(new SessionStore(join(ws, "sessions")).fileFor(KEY))).size).toBeGreaterThan(1_500_000);
    const result = await runAgentTurn(KEY, "what now?", TEST_AGENT, turnOptions(m, ws));
    expect(result.stopReason).toBe("end_turn");
    const summaries = m.requests.filter((r) => isSummary(r.body));
    expect(summaries.length).toBeGreaterThanOrEqual(3);
    for (const later of summaries.slice(1)) expect(JSON.stringify(later.body)).toContain("<previous-summary>\\nSUMMARY so far");
  });
});
