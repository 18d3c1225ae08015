// Session file names: readable, reversible, inside the folder on every file system; old-style names found and moved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { decodeKey, encodeKey, MAX_ENCODED_KEY_BYTES } from "../../src/sessions/session-path.js";
import { isHashedStem } from "../../src/fs/file-names.js";
import { SessionStore } from "../../src/sessions/store.js";
import { SessionError } from "../../src/errors.js";
import { tempDir, user } from "./session-builders.js";

/** No separator, nothing Windows refuses, not hidden. */
const SAFE_NAME = /^[^./\\:*?"<>|\x00-\x1f][^/\\:*?"<>|\x00-\x1f]*$/u;

describe("session file names", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ dir, cleanup } = await tempDir()));
  afterAll(() => cleanup());

  it("are readable for the usual keys and read back as the key", () => {
    const cases: Array<[string, string]> = [
      ["agent:main:main", "agent#main#main"],
      ["cron:daily-report", "cron#daily-report"],
      ["cron:job", "cron#job"],
      ["agent:main:20261201T093745", "agent#main#20261201^t093745"],
      ["agent:research:2026-12-01 09.37", "agent#research#2026-12-01 09.37"],
    ];
    for (const [key, stem] of cases) {
      expect(encodeKey(key)).toBe(stem);
      expect(decodeKey(stem)).toBe(key);
      expect(new SessionStore(dir).fileFor(key)).toBe(join(dir, `${stem}.jsonl`));
    }
  });

  it("keeps every escape attempt inside the folder as one plain file name", () => {
    const store = new SessionStore(dir);
    for (const key of ["../x", "a/b", "..", ".", "/etc/passwd", "..\\..\\win", "a\0b", "C:\\x", ".hidden", "x.", " x ", "a*b?c", "%41", "#^~"]) {
      const file = store.fileFor(key);
      expect(dirname(file)).toBe(dir);
      expect(resolve(dir, basename(file))).toBe(file);
      expect(basename(file, ".jsonl"), key).toMatch(SAFE_NAME);
      expect(decodeKey(basename(file, ".jsonl"))).toBe(key);
    }
  });

  it("escapes Windows device names, with or without an extension", () => {
    for (const key of ["con", "CON", "nul", "prn", "aux", "com1", "lpt9", "con.txt", "com¹"]) {
      const stem = encodeKey(key);
      expect(stem, key).not.toMatch(/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i);
      expect(decodeKey(stem)).toBe(key);
    }
    expect(encodeKey("console")).toBe("console");
  });

  it("rejects an empty key and lone surrogates", () => {
    expect(() => encodeKey("")).toThrow(SessionError);
    expect(() => encodeKey("a\uD800b")).toThrow(SessionError);
    expect(() => new SessionStore(dir).fileFor("")).toThrow(/empty/);
  });

  it("round-trips any well-formed key and yields only safe names", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }), (key) => {
        const stem = encodeKey(key);
        expect(stem).toMatch(SAFE_NAME);
        expect(Buffer.byteLength(stem)).toBeLessThanOrEqual(MAX_ENCODED_KEY_BYTES);
        expect(decodeKey(stem)).toBe(isHashedStem(stem) ? undefined : key);
      }),
      { numRuns: 2_000 },
    );
  });

  it("never maps two keys to names that differ only by case or by Unicode normalization", () => {
    const fold = (stem: string): string => stem.normalize("NFD").toLowerCase().toUpperCase().toLowerCase();
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }), fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }), (a, b) => {
        fc.pre(a !== b);
        expect(fold(encodeKey(a))).not.toBe(fold(encodeKey(b)));
      }),
      { numRuns: 1000 },
    );
    const clashes = [["agent:main:Main", "agent:main:main"], ["Straße", "STRASSE"], ["café", "cafe\u0301"], ["σ", "ς"], ["k", "\u212A"], ["ǅ", "ǆ"]];
    for (const [a, b] of clashes) expect(fold(encodeKey(a!)), `${a} / ${b}`).not.toBe(fold(encodeKey(b!)));
  });

  it("hashes very long keys, keeping names short and distinct, and lists them by their header", async () => {
    const long = "agent:main:" + "ü".repeat(300);
    const other = long + "x";
    expect(Buffer.byteLength(encodeKey(long))).toBeLessThanOrEqual(MAX_ENCODED_KEY_BYTES);
    expect(encodeKey(long)).toMatch(/^agent#main#ü+~[0-9a-f]{32}$/);
    expect(encodeKey(long)).not.toBe(encodeKey(other));
    expect(decodeKey(encodeKey(long))).toBeUndefined();
    const store = new SessionStore(dir);
    await store.append(long, [user("hi")]);
    const header = JSON.parse((await readFile(store.fileFor(long), "utf8")).split("\n")[0] ?? "");
    expect(header).toMatchObject({ type: "session", key: long, agentId: "main" });
    expect((await store.list()).map((s) => s.key)).toContain(long);
  });

  it("round-trips unicode and case-clashing keys through the real file system", async () => {
    const store = new SessionStore(dir);
    const keys = ["agent:main:日本語", "cron:émoji-🎉", "agent:main:Main", "agent:main:main", "agent:main:MAIN"];
    for (const key of keys) await store.append(key, [user(`for ${key}`)]);
    const listed = (await store.list()).map((s) => s.key);
    for (const key of keys) expect(listed).toContain(key);
    const names = await readdir(dir);
    expect(names).toContain("agent#main#日本語.jsonl");
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    for (const key of keys) expect((await store.load(key)).messages.map((m) => m.content)).toEqual([`for ${key}`]);
  });
});

describe("sessions under old-style names", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ dir, cleanup } = await tempDir()));
  afterAll(() => cleanup());

  const header = (key: string): string => `${JSON.stringify({ type: "session", version: 1, key, agentId: "main", ts: 1 })}\n`;

  it("are listed under their key, then found and moved to the readable name when opened, losing nothing", async () => {
    const sessions = join(dir, "moved");
    await mkdir(sessions);
    const key = "agent:main:20261201T093745";
    const legacy = join(sessions, "agent%3Amain%3A20261201%54093745.jsonl");
    const old = header(key) + JSON.stringify(user("remember me")) + "\n";
    await writeFile(legacy, old);
    await writeFile(join(sessions, "seed.jsonl"), header("seed"));
    expect((await new SessionStore(sessions).list()).map((s) => s.key).sort()).toEqual([key, "seed"]);
    const loaded = await new SessionStore(sessions).load(key);
    expect(loaded.messages.map((m) => m.content)).toEqual(["remember me"]);
    expect((await readdir(sessions)).sort()).toEqual(["agent#main#20261201^t093745.jsonl", "seed.jsonl"]);
    expect(await readFile(join(sessions, "agent#main#20261201^t093745.jsonl"), "utf8")).toBe(old);
  });

  it("are left alone when a file under the new name exists already", async () => {
    const sessions = join(dir, "both");
    await mkdir(sessions);
    const key = "cron:job";
    await writeFile(join(sessions, "cron%3Ajob.jsonl"), header(key));
    await writeFile(join(sessions, "cron#job.jsonl"), header(key));
    const store = new SessionStore(sessions);
    expect(store.fileFor(key)).toBe(join(sessions, "cron#job.jsonl"));
    expect((await readdir(sessions)).sort()).toEqual(["cron#job.jsonl", "cron%3Ajob.jsonl"]);
    expect(decodeKey("cron%3Ajob")).toBe(key);
  });
});
