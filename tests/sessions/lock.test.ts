import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { lockPathOf, SessionStore } from "../../src/sessions/store.js";
import { startChild, type Child } from "./child-process.js";
import { tempDir } from "./session-builders.js";

const KEY = "agent:main:main";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("session lock", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let children: Child[] = [];
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(async () => {
    for (const child of children) child.process.kill("SIGKILL");
    await Promise.all(children.map((child) => child.exited));
    children = [];
    await cleanup();
  });
  const start = (script: string, args: string[]): Child => {
    const child = startChild(script, args);
    children.push(child);
    return child;
  };
  const lockFile = () => lockPathOf(new SessionStore(dir).fileFor(KEY));

  it("serializes turns in one process, across stores on the same folder", async () => {
    const [a, b] = [new SessionStore(dir), new SessionStore(dir)];
    const order: string[] = [];
    const first = await a.lock(KEY);
    const second = b.lock(KEY).then((release) => {
      order.push("second acquired");
      return release;
    });
    await sleep(50);
    order.push("first releasing");
    await first();
    await (await second)();
    expect(order).toEqual(["first releasing", "second acquired"]);
    expect(existsSync(lockFile())).toBe(false);
  });

  it("gives up in one process after the bounded wait, and the queue still moves on", async () => {
    const store = new SessionStore(dir, { lockTimeoutMs: 100 });
    const held = await store.lock(KEY);
    const started = Date.now();
    await expect(store.lock(KEY)).rejects.toThrow(`session busy: ${KEY} is held by another turn in this process`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    await held();
    await (await store.lock(KEY))();
  });

  it("takes over at once the lock of a holder killed with SIGKILL", async () => {
    const child = start("hold-lock.mjs", [dir, KEY]);
    await child.waitFor("locked");
    child.process.kill("SIGKILL");
    await child.exited;
    expect(JSON.parse(await readFile(lockFile(), "utf8"))).toMatchObject({ pid: child.pid });
    const started = Date.now();
    const release = await new SessionStore(dir, { lockTimeoutMs: 10_000 }).lock(KEY);
    expect(Date.now() - started).toBeLessThan(1_000);
    await release();
  });

  it("tells a second caller the session is busy after the bounded wait while the holder lives", async () => {
    const child = start("hold-lock.mjs", [dir, KEY]);
    await child.waitFor("locked");
    const started = Date.now();
    await expect(new SessionStore(dir, { lockTimeoutMs: 300 }).lock(KEY)).rejects.toThrow(
      new RegExp(`^session busy: ${KEY} is locked by process ${child.pid} since .* \\(waited 300 ms; lock file .*\\.lock\\)$`),
    );
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(3_000);
  });

  it("removes the locks a process still holds when it exits", async () => {
    const child = start("hold-lock.mjs", [dir, KEY, "exit"]);
    expect((await child.exited).code).toBe(0);
    expect(existsSync(lockFile())).toBe(false);
  });

  it("takes over a lock file of a dead pid, or of this pid with another token (a reused pid)", async () => {
    const gone = start("hold-lock.mjs", [dir, "other", "exit"]);
    await gone.exited;
    const store = new SessionStore(dir, { lockTimeoutMs: 5_000 });
    await (await store.lock(KEY))();
    for (const pid of [gone.pid, process.pid]) {
      await writeFile(lockFile(), JSON.stringify({ pid, hostname: hostname(), ts: 1, token: "not-ours" }));
      const started = Date.now();
      await (await store.lock(KEY))();
      expect(Date.now() - started).toBeLessThan(500);
    }
  });

  it.runIf(process.platform === "linux")("takes over at once a lock whose pid now belongs to a process started after it (a reused pid)", async () => {
    const store = new SessionStore(dir, { lockTimeoutMs: 5_000 });
    await (await store.lock(KEY))();
    const stranger = spawn("sleep", ["5"], { stdio: "ignore" });
    try {
      await writeFile(lockFile(), JSON.stringify({ pid: stranger.pid, hostname: hostname(), ts: Date.now() - 60_000, token: "long-dead-owner" }));
      const started = Date.now();
      await (await store.lock(KEY))();
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      stranger.kill("SIGKILL");
    }
  });

  it("waits on a fresh unreadable lock file but takes over an old one", async () => {
    const store = new SessionStore(dir, { lockTimeoutMs: 100 });
    await store.lock(KEY).then((release) => release());
    await writeFile(lockFile(), "");
    await expect(store.lock(KEY)).rejects.toThrow(`session busy: ${KEY} is being locked by another process`);
    const old = new Date(Date.now() - 60_000);
    await utimes(lockFile(), old, old);
    await (await store.lock(KEY))();
  });

  it("treats a lock from another host as held, naming the host", async () => {
    const store = new SessionStore(dir, { lockTimeoutMs: 50 });
    await store.lock(KEY).then((release) => release());
    await writeFile(lockFile(), JSON.stringify({ pid: 1, hostname: "elsewhere.example", ts: 0, token: "t" }));
    await expect(store.lock(KEY)).rejects.toThrow(/is locked by process 1 on elsewhere\.example/);
  });

  it("releases only its own lock", async () => {
    const store = new SessionStore(dir);
    const release = await store.lock(KEY);
    const foreign = JSON.stringify({ pid: 1, hostname: "elsewhere.example", ts: 0, token: "theirs" });
    await writeFile(lockFile(), foreign);
    await release();
    await release();
    expect(await readFile(lockFile(), "utf8")).toBe(foreign);
  });
});
