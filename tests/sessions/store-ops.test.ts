import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { execFileSync } from "node:child_process";
import { readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SessionStore } from "../../src/sessions/store.js";
import type { Clock } from "../../src/deps.js";
import { nextRequestProblems } from "../helpers/session-validity.js";
import { assistantToolUse, header, lines, tempDir, turn, user } from "./session-builders.js";

const fixedClock = (now: number): Clock => ({ now: () => now, sleep: async () => {} });

describe("session store operations", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("creates a session with its header once, and knows it exists", async () => {
    const store = new SessionStore(dir, { clock: fixedClock(42) });
    expect(await store.exists("agent:scout:x")).toBe(false);
    expect(await store.create("agent:scout:x")).toEqual({ type: "session", version: 1, key: "agent:scout:x", agentId: "scout", ts: 42 });
    expect(await store.exists("agent:scout:x")).toBe(true);
    await expect(store.create("agent:scout:x")).rejects.toThrow(/already exists/);
    expect(await store.load("agent:scout:x")).toMatchObject({ exists: true, agentId: "scout", messages: [] });
  });

  it("with fsync on, appends whole records under the lock and outside it, and leaves no descriptor open", async () => {
    const store = new SessionStore(dir, { fsync: true });
    const key = "agent:main:synced";
    const record = (id: string) => ({ type: "message" as const, id, ts: 1, message: { role: "user" as const, content: [{ type: "text" as const, text: id }] } });
    const openFiles = async (): Promise<number> => (await readdir("/proc/self/fd")).length;
    const before = await openFiles();
    await store.append(key, [record("u1")]);
    const release = await store.lock(key);
    for (const id of ["u2", "u3"]) await store.append(key, [record(id)]);
    await release();
    expect(await openFiles()).toBe(before);
    const lines = (await readFile(store.fileFor(key), "utf8")).split("\n").filter(Boolean);
    expect(lines.map((line) => (JSON.parse(line) as { id?: string }).id)).toEqual([undefined, "u1", "u2", "u3"]);
  });

  it("appends on a new line after a tail torn since its own last append when it does not hold the lock, in the same process", async () => {
    const store = new SessionStore(dir);
    const key = "agent:main:torn";
    const record = (id: string, role: "user" | "assistant", text: string) => ({ type: "message" as const, id, ts: 1, message: { role, content: [{ type: "text" as const, text }] } });
    await store.append(key, [record("u1", "user", "hello"), record("a1", "assistant", "hi")]);
    const file = store.fileFor(key);
    const text = await readFile(file, "utf8");
    await writeFile(file, text.slice(0, -1));
    await store.append(key, [record("u2", "user", "again")]);
    const after = await readFile(file, "utf8");
    expect(after.split("\n").filter(Boolean).map((line) => (JSON.parse(line) as { id?: string }).id)).toEqual([undefined, "u1", "a1", "u2"]);
    expect((await store.load(key, { mode: "read" })).records.map((r) => r.id)).toEqual(["u1", "a1", "u2"]);
  });

  it("refuses a FIFO in a session file's place, to load or to append, instead of hanging", async () => {
    const store = new SessionStore(dir);
    const key = "agent:main:fifo";
    execFileSync("mkfifo", [store.fileFor(key)]);
    await expect(store.load(key)).rejects.toThrow(/cannot read session .*not a regular file/);
    const record = { type: "message" as const, id: "u1", ts: 1, message: { role: "user" as const, content: [{ type: "text" as const, text: "hello" }] } };
    await expect(store.append(key, [record])).rejects.toThrow(/cannot append to session .*not a regular file/);
  });

  it("says which folder it cannot use when the sessions folder is a link to itself", async () => {
    const sessions = join(dir, "sessions");
    await symlink("sessions", sessions);
    const store = new SessionStore(sessions);
    await expect(store.lock("agent:main:x")).rejects.toThrow(new RegExp(`cannot use the sessions folder ${sessions}: ELOOP`));
  });

  it("refuses a FIFO put in a held session's place between two appends, instead of waiting for a reader", async () => {
    const store = new SessionStore(dir);
    const key = "agent:main:swapped";
    const record = (id: string) => ({ type: "message" as const, id, ts: 1, message: { role: "user" as const, content: [{ type: "text" as const, text: id }] } });
    const release = await store.lock(key);
    try {
      await store.append(key, [record("u1")]);
      await rm(store.fileFor(key));
      execFileSync("mkfifo", [store.fileFor(key)]);
      await expect(store.append(key, [record("u2")])).rejects.toThrow(/cannot append to session/);
    } finally {
      await release();
    }
  });

  it("lists sessions newest first with agent, messages, tokens and last activity", async () => {
    const store = new SessionStore(dir, { clock: fixedClock(50) });
    const old = turn(1).map((r) => ({ ...r, ts: 100 }));
    const recent = turn(2).map((r) => ({ ...r, ts: 900 }));
    await store.append("cron:daily", old);
    await store.append("agent:scout:research", recent);
    const listed = await store.list();
    expect(listed.map(({ key, agentId, messages, lastActivity }) => ({ key, agentId, messages, lastActivity }))).toEqual([
      { key: "agent:scout:research", agentId: "scout", messages: 4, lastActivity: 900 },
      { key: "cron:daily", agentId: "main", messages: 4, lastActivity: 100 },
    ]);
    expect(listed[0]?.estimatedTokens).toBe(260);
    expect(listed[0]?.file).toBe(store.fileFor("agent:scout:research"));
  });

  it("lists nothing for a missing folder and skips stray files with a warning", async () => {
    expect(await new SessionStore(join(dir, "nope")).list()).toEqual([]);
    const onWarning = vi.fn();
    const store = new SessionStore(dir, { onWarning });
    await writeFile(join(dir, "Not A Key.jsonl"), "hello\n");
    await writeFile(join(dir, "notes.txt"), "x");
    await store.append("agent:main:main", [user("hi")]);
    expect((await store.list()).map((s) => s.key)).toEqual(["agent:main:main"]);
    expect(onWarning).toHaveBeenCalledWith(expect.stringContaining("Not A Key.jsonl: skipped"));
  });

  it("forks a session up to a message, with forkedFrom and a valid end", async () => {
    const store = new SessionStore(dir);
    const [t1, t2] = [turn(1), turn(2)];
    const [next, ask] = [user("next"), assistantToolUse(["toolu_fork"])];
    await store.append("agent:main:main", [...t1, next, ask, ...t2]);
    const fork = await store.fork("agent:main:main", "agent:main:branch", { upToMessageId: ask.id });
    expect(nextRequestProblems(fork.messages)).toEqual([]);
    expect(fork.records.slice(0, 6)).toEqual([...t1, next, ask]);
    const text = await readFile(store.fileFor("agent:main:branch"), "utf8");
    const fileLines = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    expect(fileLines[0]).toMatchObject({ type: "session", key: "agent:main:branch", agentId: "main", forkedFrom: "agent:main:main" });
    expect(fileLines).toHaveLength(9);
    expect(fileLines.at(-2)).toMatchObject({ synthetic: true, message: { role: "user", content: [{ tool_use_id: "toolu_fork", is_error: true }] } });
    expect(fileLines.at(-1)).toMatchObject({ synthetic: true, message: { role: "assistant" } });
    expect((await store.load("agent:main:main")).records).toHaveLength(10);
  });

  it("forks a whole session, and refuses a missing message, a missing source or an existing target", async () => {
    const store = new SessionStore(dir);
    await store.append("a", turn(1));
    expect((await store.fork("a", "b")).records).toHaveLength(4);
    await expect(store.fork("a", "b")).rejects.toThrow(/already exists/);
    await expect(store.fork("a", "c", { upToMessageId: "nope" })).rejects.toThrow(/no message nope in session a/);
    await expect(store.fork("zzz", "d")).rejects.toThrow(/no session zzz/);
  });

  it("forks the compaction along, so the copy loads from the same point", async () => {
    const store = new SessionStore(dir);
    const [t1, t2] = [turn(1), turn(2)];
    const compaction = { type: "compaction" as const, id: "c1", ts: 3, summary: "s", firstKeptId: t2[0]!.id, replacedMessages: 4, tokensBefore: 10 };
    await writeFile(store.fileFor("src"), lines([header("src"), ...t1, ...t2, compaction]));
    const fork = await store.fork("src", "dst");
    expect(fork.compaction).toEqual(compaction);
    expect(fork.records).toEqual(t2);
  });
});
