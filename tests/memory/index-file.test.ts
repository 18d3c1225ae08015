// The persisted search index: reused by the next store, refreshed from what changed, rebuilt when unusable.
import { execFileSync, spawn } from "node:child_process";
import { chmod, mkdir, readdir, readFile, rm, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hasStamp, INDEX_FILE_NAME, MTIME, NOTE_FIELDS, readIndexFile, writeIndexFile } from "../../src/memory/index-file.js";
import { MemoryStore } from "../../src/memory/store.js";
import { tempDir } from "../helpers/temp-dir.js";

let workspace: string;
let dir: string;
let stores: MemoryStore[] = [];
beforeEach(async () => {
  workspace = await tempDir("miniclaw-memory-index-");
  dir = join(workspace, "memory");
  await mkdir(dir);
});
afterEach(async () => {
  for (const store of stores) {
    store.close();
    await store.flush();
  }
  stores = [];
  await chmod(dir, 0o755).catch(() => undefined);
  await rm(workspace, { recursive: true, force: true });
});

function open(): MemoryStore {
  const store = new MemoryStore(dir, { persistMinNotes: 1, watch: false });
  stores.push(store);
  return store;
}

const HOUR_AGO = new Date(Date.now() - 3_600_000);
const isNote = (name: string): boolean => name.endsWith(".md") && !name.startsWith(".");

/** Notes written by hand an hour ago, so their stamps prove freshness to the next store. */
async function writeOldNotes(notes: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(notes)) {
    await writeFile(join(dir, name), content);
    await utimes(join(dir, name), HOUR_AGO, HOUR_AGO);
  }
}

async function keys(store: MemoryStore, query: string): Promise<string[]> {
  return (await store.search(query, 50)).map((r) => r.key).sort();
}

/** Builds and writes the index with one store, then returns a second store as a new process would open. */
async function persisted(notes: Record<string, string>): Promise<MemoryStore> {
  await writeOldNotes(notes);
  const first = open();
  await first.search("anything");
  await first.flush();
  return open();
}

describe("the persisted search index", () => {
  it("is written beside the notes, hidden from the listing, and reused by the next store", async () => {
    const second = await persisted({ "apple.md": "crisp apple", "pear.md": "ripe pear" });
    expect(await readdir(dir)).toContain(INDEX_FILE_NAME);
    expect((await second.list()).map((e) => e.key)).toEqual(["apple", "pear"]);
    const before = (await stat(join(dir, INDEX_FILE_NAME))).mtimeMs;
    expect(await keys(second, "apple")).toEqual(["apple"]);
    await second.flush();
    // Nothing changed, so nothing was read again and the file was left as it was.
    expect((await stat(join(dir, INDEX_FILE_NAME))).mtimeMs).toBe(before);
  });

  it("answers from the file alone when the notes are unchanged", async () => {
    const second = await persisted({ "apple.md": "crisp apple" });
    const data = await readIndexFile(dir, isNote);
    expect(data?.fileNames).toEqual(["apple.md"]);
    expect(data?.terms).toContain("crisp");
    expect(await keys(second, "crisp")).toEqual(["apple"]);
  });

  it("refreshes notes edited in place, added and removed between stores", async () => {
    const second = await persisted({ "apple.md": "crisp apple", "pear.md": "ripe pear", "plum.md": "sour plum" });
    await writeFile(join(dir, "apple.md"), "soft mango"); // edited in place, by hand
    await writeFile(join(dir, "fig.md"), "sweet fig"); // added
    await unlink(join(dir, "pear.md")); // removed
    expect(await keys(second, "crisp")).toEqual([]);
    expect(await keys(second, "mango")).toEqual(["apple"]);
    expect(await keys(second, "sweet")).toEqual(["fig"]);
    expect(await keys(second, "ripe")).toEqual([]);
    expect(await keys(second, "sour")).toEqual(["plum"]);
    await second.flush();
    const third = open();
    expect(await keys(third, "mango sweet sour ripe crisp")).toEqual(["apple", "fig", "plum"]);
  });

  it("drops a note removed between stores from the file, even when nothing else changed", async () => {
    const second = await persisted({ "apple.md": "crisp apple", "pear.md": "ripe pear" });
    await unlink(join(dir, "pear.md"));
    expect(await keys(second, "ripe pear apple")).toEqual(["apple"]);
    await second.flush();
    expect((await readIndexFile(dir, isNote))?.fileNames).toEqual(["apple.md"]);
  });

  it("refuses a small file that would inflate to gigabytes, quickly and without taking the memory", async () => {
    await writeOldNotes({ "apple.md": "crisp apple" });
    // 2 MB of gzip that inflates to 2 GB of zeros, planted where the index belongs.
    const chunk = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    await writeFile(join(dir, INDEX_FILE_NAME), Buffer.concat(Array.from({ length: 32 }, () => chunk)));
    const before = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    expect(await readIndexFile(dir, isNote)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(256 * 1024 * 1024);
    expect(await keys(open(), "apple")).toEqual(["apple"]);
  });

  it("does not trust stamps of notes written just before they were indexed", async () => {
    await writeFile(join(dir, "fresh.md"), "kiwi");
    const first = open();
    await first.search("kiwi");
    await first.flush();
    const data = await readIndexFile(dir, isNote);
    const written = await stat(join(dir, "fresh.md"));
    expect(data && hasStamp(data, 0, { mtimeMs: written.mtimeMs, size: written.size, ino: written.ino })).toBe(false);
    // Same size, and mtime put back: only a re-read can tell, and the next store does re-read.
    const { mtime } = await stat(join(dir, "fresh.md"));
    await writeFile(join(dir, "fresh.md"), "lime");
    await utimes(join(dir, "fresh.md"), mtime, mtime);
    expect(await keys(open(), "lime")).toEqual(["fresh"]);
  });

  it("ignores a corrupt, truncated or foreign index file and rebuilds it", async () => {
    await persisted({ "apple.md": "crisp apple", "pear.md": "ripe pear" });
    const good = await readFile(join(dir, INDEX_FILE_NAME));
    const flipped = Buffer.from(good);
    const middle = Math.floor(flipped.length / 2);
    flipped.writeUInt8(flipped.readUInt8(middle) ^ 0xff, middle);
    for (const bad of [flipped, good.subarray(0, good.length - 7), Buffer.from("not an index"), Buffer.alloc(0)]) {
      await writeFile(join(dir, INDEX_FILE_NAME), bad);
      const store = open();
      expect(await keys(store, "apple pear")).toEqual(["apple", "pear"]);
      await store.flush();
      expect((await readIndexFile(dir, isNote))?.fileNames).toHaveLength(2);
    }
  });

  it("is not waited on when a FIFO stands in its place", async () => {
    await writeOldNotes({ "apple.md": "crisp apple" });
    execFileSync("mkfifo", [join(dir, INDEX_FILE_NAME)]);
    // Opening a FIFO to read blocks until a writer comes; none will, so only a read that refuses it returns.
    expect(await keys(open(), "apple")).toEqual(["apple"]);
  });

  it("never returns a note for words it does not hold, even from a forged index", async () => {
    await persisted({ "apple.md": "crisp apple" });
    await writeOldNotes({ "secret.md": "nothing to see" });
    // Another folder's index, planted here: it says secret.md is all about apples.
    const other = join(workspace, "other");
    await mkdir(other);
    await writeFile(join(other, "secret.md"), "apple apple apple");
    await writeFile(join(other, "apple.md"), "crisp apple");
    for (const name of ["secret.md", "apple.md"]) await utimes(join(other, name), HOUR_AGO, HOUR_AGO);
    const planter = new MemoryStore(other, { persistMinNotes: 1, watch: false });
    await planter.search("x");
    await planter.flush();
    planter.close();
    const forged = await readIndexFile(other, isNote);
    const real = await stat(join(dir, "secret.md"));
    const stamp = { mtimeMs: real.mtimeMs, size: real.size, ino: real.ino };
    if (!forged) throw new Error("no index written");
    const noteFields = forged.noteFields.slice();
    noteFields.set([stamp.mtimeMs, stamp.size, stamp.ino], forged.fileNames.indexOf("secret.md") * NOTE_FIELDS + MTIME);
    await writeIndexFile(dir, { ...forged, noteFields });
    await utimes(join(dir, "apple.md"), HOUR_AGO, HOUR_AGO);
    expect(await keys(open(), "apple")).toEqual(["apple"]);
  });

  it("is left valid by two processes writing it at once", async () => {
    await writeOldNotes(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`note-${i}.md`, `note ${i} word${i % 7}`])));
    const child = `
      import { MemoryStore } from ${JSON.stringify(new URL("../../src/memory/store.ts", import.meta.url).href)};
      const store = new MemoryStore(${JSON.stringify(dir)}, { persistMinNotes: 1, watch: false });
      for (let i = 0; i < 5; i++) {
        await store.save("extra-" + process.pid + "-" + i, "extra word" + i);
        await store.search("word" + i);
        await store.flush();
      }
    `;
    const run = (): Promise<number | null> =>
      new Promise((resolve) => {
        const proc = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", child], { stdio: "inherit" });
        proc.on("exit", resolve);
      });
    expect(await Promise.all([run(), run()])).toEqual([0, 0]);
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
    const data = await readIndexFile(dir, isNote);
    expect(data?.fileNames.length).toBeGreaterThanOrEqual(305);
    const store = open();
    expect((await store.search("extra", 50)).length).toBe(10);
    expect(await keys(store, "word3")).toContain("note-3");
  });

  it.skipIf(process.getuid?.() === 0)("keeps searching in memory when the folder is read-only", async () => {
    await writeOldNotes({ "apple.md": "crisp apple" });
    await chmod(dir, 0o555);
    const store = open();
    expect(await keys(store, "apple")).toEqual(["apple"]);
    await store.flush();
    expect(await readdir(dir)).toEqual(["apple.md"]);
  });

  it("keeps searching in memory when the index file cannot be replaced", async () => {
    await writeOldNotes({ "apple.md": "crisp apple" });
    await mkdir(join(dir, INDEX_FILE_NAME));
    const store = open();
    expect(await keys(store, "apple")).toEqual(["apple"]);
    await store.flush();
    await writeOldNotes({ "pear.md": "ripe pear" });
    expect(await keys(store, "pear apple")).toEqual(["apple", "pear"]);
    expect((await readdir(dir)).sort()).toEqual([INDEX_FILE_NAME, "apple.md", "pear.md"]);
  });
});
