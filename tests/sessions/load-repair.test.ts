import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readFile, writeFile } from "node:fs/promises";
import { SessionStore } from "../../src/sessions/store.js";
import { INTERRUPTED_TOOL_TEXT, NO_REPLY_TEXT } from "../../src/sessions/repair.js";
import { messageProblems, nextRequestProblems } from "../helpers/session-validity.js";
import { assistantText, assistantToolUse, header, lines, toolResults, turn, user, tempDir } from "./session-builders.js";

const KEY = "agent:main:main";

describe("loading a damaged session", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let store: SessionStore;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    store = new SessionStore(dir);
  });
  afterEach(() => cleanup());

  const write = (text: string) => writeFile(store.fileFor(KEY), text);
  const fileLines = async () => (await readFile(store.fileFor(KEY), "utf8")).split("\n").filter(Boolean);

  it("loads a missing session as empty", async () => {
    const session = await store.load(KEY);
    expect(session).toMatchObject({ exists: false, messages: [], records: [], warnings: [] });
  });

  it("skips a torn last line with a warning naming file and line", async () => {
    const good = turn(1);
    await write(lines([header(KEY), ...good]) + '{"type":"message","id":"x","ts":1,"mess');
    const session = await store.load(KEY);
    expect(session.messages).toEqual(good.map((r) => r.message));
    expect(session.warnings).toEqual([expect.stringMatching(new RegExp(`${store.fileFor(KEY)}:6: skipped a torn last line`))]);
  });

  it("skips a corrupt middle line with a warning naming file and line, and keeps the rest", async () => {
    const [a, b] = [turn(1), turn(2)];
    await write(lines([header(KEY), ...a]) + "{not json}\n" + lines(b));
    const session = await store.load(KEY);
    expect(session.messages).toEqual([...a, ...b].map((r) => r.message));
    expect(session.warnings).toEqual([expect.stringContaining(`${store.fileFor(KEY)}:6: skipped a corrupt line`)]);
  });

  it("closes a turn cut short mid-tool at the start of the next turn, and persists the repair", async () => {
    const ask = assistantToolUse(["toolu_a", "toolu_b"]);
    await write(lines([header(KEY), user("do it"), ask]));
    const release = await store.lock(KEY);
    const session = await store.load(KEY);
    await release();
    expect(nextRequestProblems(session.messages)).toEqual([]);
    expect(session.messages.slice(-2)).toEqual([
      { role: "user", content: ["toolu_a", "toolu_b"].map((id) => ({ type: "tool_result", tool_use_id: id, is_error: true, content: INTERRUPTED_TOOL_TEXT })) },
      { role: "assistant", content: [{ type: "text", text: NO_REPLY_TEXT }] },
    ]);
    expect(session.warnings).toEqual([
      expect.stringContaining("answered 2 interrupted tool call(s) (toolu_a, toolu_b) with an error result"),
      expect.stringContaining("the last user message had no reply"),
    ]);
    const written = (await fileLines()).map((line) => JSON.parse(line));
    expect(written).toHaveLength(5);
    expect(written.slice(3).map((r) => [r.synthetic, r.message])).toEqual(session.messages.slice(-2).map((m) => [true, m]));
    const again = await store.load(KEY);
    expect(again.messages).toEqual(session.messages);
    expect(again.warnings).toEqual([]);
  });

  it("answers a trailing tool_use in memory only when reading without the lock", async () => {
    await write(lines([header(KEY), user("do it"), assistantToolUse(["toolu_a"])]));
    const session = await store.load(KEY);
    expect(nextRequestProblems(session.messages)).toEqual([]);
    expect(session.messages.at(-1)?.role).toBe("user");
    expect(await fileLines()).toHaveLength(3);
  });

  it("closes an unanswered user message at the start of the next turn, persisted under the lock", async () => {
    await write(lines([header(KEY), ...turn(1), user("are you there?")]));
    const release = await store.lock(KEY);
    const session = await store.load(KEY);
    await release();
    expect(session.messages.at(-2)).toEqual({ role: "user", content: "are you there?" });
    expect(session.messages.at(-1)).toEqual({ role: "assistant", content: [{ type: "text", text: NO_REPLY_TEXT }] });
    expect(nextRequestProblems(session.messages)).toEqual([]);
    expect(JSON.parse((await fileLines()).at(-1) ?? "")).toMatchObject({ synthetic: true, message: { role: "assistant" } });
  });

  it("returns the end as written during a turn: its request in flight, its tool calls running", async () => {
    await write(lines([header(KEY), ...turn(1)]));
    const release = await store.lock(KEY);
    expect((await store.load(KEY)).warnings).toEqual([]);
    const question = user("next question");
    await store.append(KEY, [question]);
    expect((await store.load(KEY)).messages.at(-1)).toEqual(question.message);
    const ask = assistantToolUse(["toolu_running"]);
    await store.append(KEY, [ask]);
    expect((await store.load(KEY)).messages.at(-1)).toEqual(ask.message);
    await release();
    expect(await fileLines()).toHaveLength(7);
  });

  it("keeps a trailing user message when reading, and obeys an explicit mode", async () => {
    await write(lines([header(KEY), ...turn(1), user("are you there?")]));
    expect((await store.load(KEY)).messages.at(-1)).toEqual({ role: "user", content: "are you there?" });
    expect((await store.load(KEY, { mode: "in-turn" })).messages.at(-1)).toEqual({ role: "user", content: "are you there?" });
    expect(await fileLines()).toHaveLength(6);
    expect((await store.load(KEY, { mode: "turn-start" })).messages.at(-1)?.role).toBe("assistant");
    expect(await fileLines()).toHaveLength(7);
  });

  it("answers a tool_use in the middle whose result is missing, inside the next user message", async () => {
    const ask = assistantToolUse(["toolu_a", "toolu_b"]);
    const partial = toolResults(["toolu_b"]);
    await write(lines([header(KEY), user("go"), ask, partial, assistantText("done"), user("and?"), assistantToolUse(["toolu_c"]), user("never mind"), assistantText("ok")]));
    const session = await store.load(KEY);
    expect(messageProblems(session.messages)).toEqual([]);
    expect(session.messages[2]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_a", is_error: true, content: INTERRUPTED_TOOL_TEXT },
      { type: "tool_result", tool_use_id: "toolu_b", content: "contents of toolu_b" },
    ]);
    expect(session.messages[6]?.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_c", is_error: true, content: INTERRUPTED_TOOL_TEXT },
      { type: "text", text: "never mind" },
    ]);
    expect(session.records.map((r) => r.message)).toEqual(session.messages);
  });

  it("separates an unanswered user message from the next one on later loads", async () => {
    const [lost, next] = [user("are you there?"), user("hello?")];
    await write(lines([header(KEY), ...turn(1), lost, next, assistantText("yes")]));
    const session = await store.load(KEY);
    expect(session.messages.slice(-4)).toEqual([lost.message, { role: "assistant", content: [{ type: "text", text: NO_REPLY_TEXT }] }, next.message, { role: "assistant", content: [{ type: "text", text: "yes" }] }]);
    expect(session.records[5]).toMatchObject({ id: `${lost.id}:no-reply`, synthetic: true });
    expect(messageProblems(session.messages)).toEqual([]);
  });

  it("keeps pairs valid when the line of a tool_use is lost", async () => {
    await write(lines([header(KEY), user("go")]) + "garbage\n" + lines([toolResults(["toolu_lost"]), assistantText("done")]));
    const session = await store.load(KEY);
    expect(nextRequestProblems(session.messages)).toEqual([]);
    expect(session.messages[1]).toMatchObject({ role: "assistant" });
    expect(JSON.stringify(session.messages)).toContain("[result of an earlier tool call toolu_lost]");
  });

  it("appends after a torn tail on a line of its own", async () => {
    await write(lines([header(KEY), ...turn(1)]) + '{"type":"message","id":"torn","ts":1,"message":{"ro');
    const next = user("hello again");
    await store.append(KEY, [next]);
    const written = await fileLines();
    expect(written.at(-1)).toBe(JSON.stringify(next));
    expect(written.at(-2)).toMatch(/^\{"type":"message","id":"torn"/);
    const session = await store.load(KEY);
    expect(session.messages.at(-1)).toEqual(next.message);
    expect(session.warnings).toEqual([expect.stringContaining(`${store.fileFor(KEY)}:6: skipped a corrupt line`)]);
  });

  it("writes a header with the agent of the key when it creates a file", async () => {
    await store.append("agent:scout:main", [user("hi")]);
    const first = JSON.parse((await readFile(store.fileFor("agent:scout:main"), "utf8")).split("\n")[0] ?? "");
    expect(first).toMatchObject({ type: "session", version: 1, key: "agent:scout:main", agentId: "scout" });
    await store.append("cron:daily", [user("hi")]);
    expect((await store.load("cron:daily")).agentId).toBe("main");
  });

  it("refuses to write an invalid record", async () => {
    const bad = { type: "message", id: "x", ts: 1, message: { role: "system", content: "no" } } as never;
    await expect(store.append(KEY, [bad])).rejects.toThrow(/refusing to write an invalid message record/);
    expect(await store.exists(KEY)).toBe(false);
  });
});
