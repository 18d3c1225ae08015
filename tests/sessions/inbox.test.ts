// The durable steering inbox: steers added by any process, taken once, marked delivered, and the file cleaned up.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { addSteer, COMPACT_DELIVERED_BYTES, inboxPath, MAX_STEER_BYTES, SessionInbox } from "../../src/sessions/inbox.js";
import { listSessions } from "../../src/sessions/session-listing.js";
import { SessionError } from "../../src/errors.js";
import { systemClock } from "../../src/deps.js";
import type { Inbox } from "../../src/types.js";
import { tempDir } from "./session-builders.js";

const KEY = "agent:main:main";
/** The built module, for child processes (the suite's global setup builds dist/ first). */
const INBOX_MODULE = new URL("../../dist/sessions/inbox.js", import.meta.url).href;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs an ES module script in a child Node process with `inbox` (the built module) and `args` in scope. */
function runChild(body: string, args: string[]): Promise<Exit> {
  const script = `const inbox = await import(${JSON.stringify(INBOX_MODULE)}); const args = process.argv.slice(1);\n${body}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

const texts = (messages: Array<{ text: string }>): string[] => messages.map((m) => m.text);

describe("durable steering inbox", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("hands added steers over in order, once, and never again once delivered, then removes the file", async () => {
    const inbox: Inbox = new SessionInbox(dir, KEY);
    const first = await addSteer(dir, KEY, "look at the tests first");
    const second = await addSteer(dir, KEY, "and skip the docs");

    expect(await inbox.take()).toEqual([
      { id: first, text: "look at the tests first" },
      { id: second, text: "and skip the docs" },
    ]);
    expect(await inbox.take()).toEqual([]);
    const third = await addSteer(dir, KEY, "one more");
    expect(await inbox.take()).toEqual([{ id: third, text: "one more" }]);

    await inbox.delivered?.([first, second]);
    expect(await new SessionInbox(dir, KEY).take()).toEqual([{ id: third, text: "one more" }]);
    await inbox.delivered?.([third]);
    expect(existsSync(inboxPath(dir, KEY))).toBe(false);
    expect(await new SessionInbox(dir, KEY).take()).toEqual([]);
  });

  it("writes one steer line with its id, the clock's time and the text, in a file the session listing ignores", async () => {
    const clock = { ...systemClock, now: () => 1_234 };
    const id = await addSteer(dir, KEY, 'quotes " and\nnewlines', clock);

    const file = inboxPath(dir, KEY);
    expect(file.endsWith("agent#main#main.jsonl.inbox")).toBe(true);
    expect(await readFile(file, "utf8")).toBe(JSON.stringify({ type: "steer", id, ts: 1_234, text: 'quotes " and\nnewlines' }) + "\n");
    const warnings: string[] = [];
    expect(await listSessions(dir, { onWarning: (m) => warnings.push(m), clock: systemClock })).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("keeps inboxes of different sessions apart", async () => {
    await addSteer(dir, "agent:main:a", "for a");
    await addSteer(dir, "agent:main:b", "for b");
    expect(texts(await new SessionInbox(dir, "agent:main:a").take())).toEqual(["for a"]);
    expect(texts(await new SessionInbox(dir, "agent:main:b").take())).toEqual(["for b"]);
  });

  it("refuses empty text and text over 100 KB, and accepts exactly 100 KB", async () => {
    await expect(addSteer(dir, KEY, "")).rejects.toThrow(new SessionError(`cannot steer session ${KEY}: the text is empty`));
    await expect(addSteer(dir, KEY, " \n\t")).rejects.toThrow(SessionError);
    const over = "é".repeat(MAX_STEER_BYTES / 2 + 1);
    await expect(addSteer(dir, KEY, over)).rejects.toThrow(
      new SessionError(`cannot steer session ${KEY}: the text is ${MAX_STEER_BYTES + 2} bytes, more than the ${MAX_STEER_BYTES} allowed`),
    );
    expect(existsSync(inboxPath(dir, KEY))).toBe(false);
    const exact = "x".repeat(MAX_STEER_BYTES);
    await addSteer(dir, KEY, exact);
    expect(texts(await new SessionInbox(dir, KEY).take())).toEqual([exact]);
  });

  it("leaves a torn last line for later and skips a damaged line, warning once", async () => {
    const file = inboxPath(dir, KEY);
    const whole = JSON.stringify({ type: "steer", id: "s1", ts: 1, text: "whole" });
    const torn = JSON.stringify({ type: "steer", id: "s2", ts: 2, text: "torn" });
    await writeFile(file, `${whole}\nnot json\n${torn.slice(0, 20)}`);
    const warnings: string[] = [];
    const inbox = new SessionInbox(dir, KEY, { onWarning: (m) => warnings.push(m) });

    expect(await inbox.take()).toEqual([{ id: "s1", text: "whole" }]);
    await appendFile(file, `${torn.slice(20)}\n`);
    expect(await inbox.take()).toEqual([{ id: "s2", text: "torn" }]);
    expect(warnings).toEqual([`${file}: skipped a damaged line: line 2 is neither a steer nor a delivered mark: not json`]);
  });

  it("starts a new line after a line torn by a writer that died, so the next steer arrives whole", async () => {
    const file = inboxPath(dir, KEY);
    await writeFile(file, '{"type":"steer","id":"dead","ts":1,"te');
    const id = await addSteer(dir, KEY, "after the crash");
    const warnings: string[] = [];
    expect(await new SessionInbox(dir, KEY, { onWarning: (m) => warnings.push(m) }).take()).toEqual([{ id, text: "after the crash" }]);
    expect(warnings).toHaveLength(1);
  });

  it("rewrites the file with only the waiting steers once delivered ones pass 64 KB", async () => {
    const big = "b".repeat(COMPACT_DELIVERED_BYTES / 2 + 10);
    const ids = [await addSteer(dir, KEY, big), await addSteer(dir, KEY, big), await addSteer(dir, KEY, "small")];
    const inbox = new SessionInbox(dir, KEY);
    expect(await inbox.take()).toHaveLength(3);

    await inbox.delivered([ids[0]!]);
    expect((await readFile(inboxPath(dir, KEY), "utf8")).split("\n")).toHaveLength(5);
    await inbox.delivered([ids[1]!]);
    const lines = (await readFile(inboxPath(dir, KEY), "utf8")).split("\n");
    expect(lines.map((line) => (line === "" ? "" : (JSON.parse(line) as { id: string }).id))).toEqual([ids[2], ""]);
    expect(await new SessionInbox(dir, KEY).take()).toEqual([{ id: ids[2], text: "small" }]);
  });

  it("reads a missing inbox as empty, and refuses one it cannot read (its folder is a file, or it is a folder)", async () => {
    expect(await new SessionInbox(dir, KEY).take()).toEqual([]);
    const notAFolder = `${dir}/plain-file`;
    await writeFile(notAFolder, "x");
    await expect(new SessionInbox(notAFolder, KEY).take()).rejects.toThrow(SessionError);
    await mkdir(inboxPath(dir, KEY));
    await expect(new SessionInbox(dir, KEY).take()).rejects.toThrow(/cannot read the steering inbox/);
  });

  it("ignores delivered ids it does not hold, and an empty list", async () => {
    const id = await addSteer(dir, KEY, "kept");
    const inbox = new SessionInbox(dir, KEY);
    await inbox.delivered([]);
    await inbox.delivered(["someone-else"]);
    await new SessionInbox(dir, "agent:main:other").delivered(["x"]);
    expect(await inbox.take()).toEqual([{ id, text: "kept" }]);
  });

  it("is not taken by another process once one process marked it delivered", async () => {
    const [a, b] = [await addSteer(dir, KEY, "a"), await addSteer(dir, KEY, "b")];
    const child = await runChild(
      `const box = new inbox.SessionInbox(args[0], args[1]); const taken = await box.take(); await box.delivered([taken[0].id]); console.log(JSON.stringify(taken));`,
      [dir, KEY],
    );
    expect([child.code, child.stderr]).toEqual([0, ""]);
    expect(JSON.parse(child.stdout)).toEqual([{ id: a, text: "a" }, { id: b, text: "b" }]);
    expect(await new SessionInbox(dir, KEY).take()).toEqual([{ id: b, text: "b" }]);
  });

  it("hands a message again to a new process after a crash between take and delivered", async () => {
    const id = await addSteer(dir, KEY, "survive the crash");
    const crashed = await runChild(
      `const taken = await new inbox.SessionInbox(args[0], args[1]).take(); process.stdout.write(JSON.stringify(taken) + "\\n", () => process.kill(process.pid, "SIGKILL"));`,
      [dir, KEY],
    );
    expect([crashed.signal, JSON.parse(crashed.stdout)]).toEqual(["SIGKILL", [{ id, text: "survive the crash" }]]);

    const restarted = new SessionInbox(dir, KEY);
    expect(await restarted.take()).toEqual([{ id, text: "survive the crash" }]);
    await restarted.delivered([id]);
    expect(await new SessionInbox(dir, KEY).take()).toEqual([]);
  });

  it("loses nothing when 10 processes add at once while a consumer takes, delivers and removes the file", async () => {
    const perChild = 10;
    const adding = Array.from({ length: 10 }, (_, c) =>
      runChild(`for (let i = 0; i < ${perChild}; i++) await inbox.addSteer(args[0], args[1], "child ${c} steer " + i);`, [dir, KEY]),
    );
    let done = false;
    const finished = Promise.all(adding).finally(() => (done = true));
    const consumer = new SessionInbox(dir, KEY);
    const received: string[] = [];
    for (let last = false; !last; ) {
      last = done;
      const taken = await consumer.take();
      received.push(...texts(taken));
      await consumer.delivered(taken.map((m) => m.id));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const exits = await finished;

    expect(exits.map((e) => [e.code, e.stderr])).toEqual(Array.from({ length: 10 }, () => [0, ""]));
    const expected = Array.from({ length: 10 }, (_, c) => Array.from({ length: perChild }, (_, i) => `child ${c} steer ${i}`)).flat();
    expect([...received].sort()).toEqual([...expected].sort());
    for (let c = 0; c < 10; c++) {
      expect(received.filter((t) => t.startsWith(`child ${c} `))).toEqual(expected.filter((t) => t.startsWith(`child ${c} `)));
    }
    expect(existsSync(inboxPath(dir, KEY))).toBe(false);
  });
});
