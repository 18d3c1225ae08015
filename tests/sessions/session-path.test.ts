import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fc from "fast-check";
import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { decodeKey, encodeKey, isHashedStem, MAX_ENCODED_KEY_BYTES } from "../../src/sessions/key-encoding.js";
import { SessionStore } from "../../src/sessions/store.js";
import { SessionError } from "../../src/errors.js";
import { tempDir, user } from "./session-builders.js";

const SAFE_NAME = /^[a-z0-9_%A-F~-]+$/;

describe("key encoding", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => ({ dir, cleanup } = await tempDir()));
  afterAll(() => cleanup());

  it("keeps every escape attempt inside the folder as one plain file name", () => {
    const store = new SessionStore(dir);
    for (const key of ["../x", "a/b", "..", ".", "/etc/passwd", "..\\..\\win", "a\0b", "C:\\x", ".hidden", "x."]) {
      const file = store.fileFor(key);
      expect(dirname(file)).toBe(dir);
      expect(resolve(dir, basename(file))).toBe(file);
      expect(basename(file, ".jsonl")).toMatch(SAFE_NAME);
      expect(decodeKey(basename(file, ".jsonl"))).toBe(key);
    }
  });

  it("escapes Windows device names", () => {
    for (const key of ["con", "nul", "prn", "aux", "com1", "lpt9"]) {
      expect(encodeKey(key)).not.toBe(key);
      expect(decodeKey(encodeKey(key))).toBe(key);
    }
    expect(encodeKey("console")).toBe("console");
  });

  it("encodes the usual keys readably", () => {
    expect(encodeKey("agent:main:main")).toBe("agent%3Amain%3Amain");
    expect(encodeKey("cron:daily-report")).toBe("cron%3Adaily-report");
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

  it("never maps two keys to names that differ only by case", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ minLength: 1, maxLength: 12 }), (a, b) => {
        fc.pre(a !== b);
        expect(encodeKey(a).toLowerCase()).not.toBe(encodeKey(b).toLowerCase());
      }),
      { numRuns: 1000 },
    );
    expect(encodeKey("Main").toLowerCase()).not.toBe(encodeKey("main").toLowerCase());
  });

  it("hashes very long keys, keeping names short and distinct, and lists them by their header", async () => {
    const long = "agent:main:" + "ü".repeat(300);
    const other = long + "x";
    expect(Buffer.byteLength(encodeKey(long))).toBeLessThanOrEqual(MAX_ENCODED_KEY_BYTES);
    expect(encodeKey(long)).not.toBe(encodeKey(other));
    expect(decodeKey(encodeKey(long))).toBeUndefined();
    const store = new SessionStore(dir);
    await store.append(long, [user("hi")]);
    const header = JSON.parse((await readFile(store.fileFor(long), "utf8")).split("\n")[0] ?? "");
    expect(header).toMatchObject({ type: "session", key: long, agentId: "main" });
    expect((await store.list()).map((s) => s.key)).toContain(long);
  });

  it("round-trips unicode keys through the real file system", async () => {
    const store = new SessionStore(dir);
    const keys = ["agent:main:日本語", "cron:émoji-🎉", "agent:main:Main", "agent:main:main"];
    for (const key of keys) await store.append(key, [user(`for ${key}`)]);
    const listed = (await store.list()).map((s) => s.key);
    for (const key of keys) expect(listed).toContain(key);
    const names = await readdir(dir);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
  });
});
