// Memory keys: every key becomes a safe file name inside the folder and comes back unchanged.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MiniclawError } from "../../src/errors.js";
import { fileNameToKey, keyToFileName } from "../../src/memory/folder-tracker.js";
import { MemoryStore } from "../../src/memory/store.js";
import { tempDir } from "../helpers/temp-dir.js";

const HOSTILE = ["../x", "a/b", ".", "..", "../../etc/passwd", "a\\b", "/abs", ".hidden", "x.", "trailing ", "%41", "C:evil", "con", "CON", "nul.txt", "tab\there", "line\nbreak", "a#b^c~d", "x".repeat(200)];
const UNICODE = ["café", "日本語のメモ", "emoji 🎉 party", "Ünïcödé Straße", "مرحبا"];

describe("keyToFileName / fileNameToKey", () => {
  it("round-trips every key, hostile or not", () => {
    for (const key of [...HOSTILE, ...UNICODE, "user-preferences", "Project Alpha (2025)", "a+b=c, d@e!~'"]) {
      const name = keyToFileName(key);
      expect(name.endsWith(".md"), key).toBe(true);
      expect(name, key).not.toMatch(/[/\\\n\t\0:*?"<>|]/);
      expect(name.startsWith("."), key).toBe(false);
      expect(fileNameToKey(name), key).toBe(key.normalize("NFC").trim());
    }
  });

  it("keeps readable keys readable on disk, marking capitals so case-insensitive file systems keep them apart", () => {
    expect(keyToFileName("user-preferences")).toBe("user-preferences.md");
    expect(keyToFileName("project alpha (2025)")).toBe("project alpha (2025).md");
    expect(keyToFileName("Project Alpha")).toBe("^project ^alpha.md");
    expect(keyToFileName("meeting: monday")).toBe("meeting# monday.md");
    expect(keyToFileName("café")).toBe("café.md");
    expect(keyToFileName("Todo").toLowerCase()).not.toBe(keyToFileName("todo").toLowerCase());
    expect(keyToFileName("a/b")).toBe("a%2Fb.md");
    expect(keyToFileName("..")).toBe("%2E%2E.md");
  });

  it("trims the key and normalises it to NFC, so equal-looking keys share a note", () => {
    expect(keyToFileName("  note  ")).toBe("note.md");
    expect(keyToFileName("cafe\u0301")).toBe(keyToFileName("caf\u00e9"));
  });

  it("refuses an empty key and a key too long for a file name", () => {
    for (const key of ["", "   ", "\n"]) expect(() => keyToFileName(key)).toThrow(MiniclawError);
    expect(() => keyToFileName("x".repeat(300))).toThrow(/too long/);
    expect(() => keyToFileName("a\uD800b")).toThrow(MiniclawError);
    expect(() => keyToFileName("/".repeat(100))).toThrow(/too long/);
  });

  it("ignores files that are not notes: hidden, temporary or not Markdown", () => {
    for (const name of [".abc.tmp", ".md", "notes.txt", ".hidden.md", "README"]) expect(fileNameToKey(name), name).toBeUndefined();
    expect(fileNameToKey("100%.md")).toBe("100%");
    expect(fileNameToKey("Groceries list.md")).toBe("Groceries list");
  });

  it("reads names of the earlier encoding as the key they were written for", () => {
    expect(fileNameToKey("Project Alpha.md")).toBe("Project Alpha");
    expect(fileNameToKey("a~b.md")).toBe("a~b");
    expect(fileNameToKey("C%3Aevil.md")).toBe("C:evil");
    expect(fileNameToKey("%63on.md")).toBe("con");
    expect(fileNameToKey("Ünïcödé Straße.md")).toBe("Ünïcödé Straße");
  });
});

describe("MemoryStore keys on disk", () => {
  let workspace: string;
  let store: MemoryStore;
  beforeEach(async () => {
    workspace = await tempDir("miniclaw-keys-");
    store = MemoryStore.forWorkspace(workspace);
  });
  afterEach(async () => {
    store.close();
    await rm(workspace, { recursive: true, force: true });
  });

  it("keeps every hostile key inside the memory folder and lists it back as written", async () => {
    const keys = [...HOSTILE, ...UNICODE].map((k) => k.normalize("NFC").trim());
    for (const key of keys) await store.save(key, `note for ${JSON.stringify(key)}`);
    expect(await readdir(workspace)).toEqual(["memory"]);
    expect(await readdir(join(workspace, "memory"))).toHaveLength(new Set(keys).size);
    expect((await store.list()).map((e) => e.key).sort()).toEqual([...new Set(keys)].sort());
    for (const key of keys) expect((await store.read(key))?.content, key).toBe(`note for ${JSON.stringify(key)}`);
  });

  it("keeps notes whose keys differ only by case apart", async () => {
    await store.save("Todo", "capital");
    await store.save("todo", "small");
    const names = await readdir(join(workspace, "memory"));
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(2);
    expect((await store.read("Todo"))?.content).toBe("capital");
    expect((await store.read("todo"))?.content).toBe("small");
  });

  it("finds notes saved under the earlier encoding's names, and saves them in place", async () => {
    const dir = join(workspace, "memory");
    await mkdir(dir);
    // What the earlier encoding wrote for these keys.
    const old = { "Project Alpha": "Project Alpha.md", "a~b": "a~b.md", "Ünïcödé Straße": "Ünïcödé Straße.md", "C:evil": "C%3Aevil.md" };
    for (const [key, name] of Object.entries(old)) await writeFile(join(dir, name), `old ${key}`);
    expect((await store.list()).map((e) => e.key).sort()).toEqual(Object.keys(old).sort());
    for (const key of Object.keys(old)) expect((await store.read(key))?.content, key).toBe(`old ${key}`);
    expect((await store.search("old alpha"))[0]?.key).toBe("Project Alpha");
    expect(await store.save("Project Alpha", "new alpha")).toMatchObject({ replaced: true });
    expect(await readFile(join(dir, "Project Alpha.md"), "utf8")).toBe("new alpha");
    expect((await readdir(dir)).sort()).toEqual(Object.values(old).sort());
  });

  it("rejects an empty key without writing anything", async () => {
    await expect(store.save("  ", "x")).rejects.toThrow(/empty/);
    expect(await store.list()).toEqual([]);
  });
});
