// MemoryStore: saving, reading, listing, deleting, and a search that follows the folder.
import { readdir, rm, stat, unlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/memory/store.js";
import { tempDir } from "../helpers/temp-dir.js";

let workspace: string;
let stores: MemoryStore[] = [];
beforeEach(async () => {
  workspace = await tempDir("miniclaw-memory-");
});
afterEach(async () => {
  for (const store of stores) {
    store.close();
    // A store writes its index file once it holds enough notes: let that finish before removing the folder.
    await store.flush();
  }
  stores = [];
  await rm(workspace, { recursive: true, force: true });
});

function open(options: { watch?: boolean } = {}): MemoryStore {
  const store = MemoryStore.forWorkspace(workspace, options);
  stores.push(store);
  return store;
}

const memoryDir = (): string => join(workspace, "memory");

describe("MemoryStore notes", () => {
  it("saves, reads, lists and deletes notes, leaving no temporary file behind", async () => {
    const store = open();
    expect(await store.list()).toEqual([]);
    expect(await store.read("missing")).toBeUndefined();
    const saved = await store.save("user-preferences", "Prefers tea.");
    expect(saved).toMatchObject({ key: "user-preferences", replaced: false, size: 12 });
    await store.save("alpha", "First.");
    expect((await store.list()).map((e) => e.key)).toEqual(["alpha", "user-preferences"]);
    expect(await store.read("user-preferences")).toMatchObject({ key: "user-preferences", content: "Prefers tea." });
    expect(await readdir(memoryDir())).toEqual(["alpha.md", "user-preferences.md"]);
    expect(await store.delete("alpha")).toBe(true);
    expect(await store.delete("alpha")).toBe(false);
    expect((await store.list()).map((e) => e.key)).toEqual(["user-preferences"]);
  });

  it("replaces a note saved under the same key and moves its updated time", async () => {
    const store = open();
    await store.save("k", "old");
    const file = join(memoryDir(), "k.md");
    await utimes(file, new Date("2024-01-01T00:00:00Z"), new Date("2024-01-01T00:00:00Z"));
    const before = (await store.read("k"))?.updated.getTime() ?? 0;
    const saved = await store.save("k", "new content");
    expect(saved.replaced).toBe(true);
    expect(saved.updated.getTime()).toBeGreaterThan(before);
    expect((await store.read("k"))?.content).toBe("new content");
    expect(await readdir(memoryDir())).toEqual(["k.md"]);
  });

  it("reads a note dropped in by hand under a spelling the store would not use", async () => {
    const store = open();
    await store.save("seed", "x");
    await writeFile(join(memoryDir(), "100%.md"), "all of it");
    expect(await store.read("100%")).toMatchObject({ key: "100%", content: "all of it" });
    await store.save("100%", "updated");
    expect(await readdir(memoryDir())).toEqual(["100%.md", "seed.md"]);
  });
});

describe("MemoryStore search", () => {
  it("ranks a note that matches the query well above one that mentions a word once", async () => {
    const store = open();
    await store.save("garden-shed", "Garden shed project: the shed roof needs felt; shed door hinges ordered. Budget for the shed is 900 EUR.");
    await store.save("weekend", "Went to the market, then cleaned the garden a bit. Saw a shed on sale.");
    await store.save("coffee", "Prefers dark roast, no sugar.");
    const results = await store.search("shed roof budget");
    expect(results.map((r) => r.key)).toEqual(["garden-shed", "weekend"]);
    expect(results[0]?.score).toBeGreaterThan(results[1]?.score ?? Infinity);
  });

  it("weights the key: a note named after the query outranks one that only mentions it", async () => {
    const store = open();
    await store.save("lisbon-trip", "Flights booked for May. Hotel near the river.");
    await store.save("misc", "Someone mentioned lisbon once, in passing, among many other words here.");
    const [first] = await store.search("lisbon");
    expect(first?.key).toBe("lisbon-trip");
  });

  it("says nothing matched with an empty list", async () => {
    const store = open();
    await store.save("a", "apples and pears");
    expect(await store.search("zebra")).toEqual([]);
    expect(await store.search("!!!")).toEqual([]);
    expect(await open().search("anything")).toEqual([]);
  });

  it("returns a snippet around the first match, not the whole note", async () => {
    const store = open();
    const filler = "Lorem ipsum dolor sit amet consectetur. ".repeat(30);
    await store.save("long", `${filler}The locker code is 4711 and it changes monthly. ${filler}`);
    const [result] = await store.search("locker");
    expect(result?.snippet).toMatch(/^….*The locker code is 4711.*…$/);
    expect(result?.snippet.length).toBeLessThan(260);
    expect(result?.path).toBe(join(memoryDir(), "long.md"));
    expect(result?.updated).toBeInstanceOf(Date);
  });

  it("matches without regard to case or accents, and longer words by their start", async () => {
    const store = open();
    await store.save("cafe", "Meet at the Café Central on Fridays. Deployment notes elsewhere.");
    expect((await store.search("cafe")).map((r) => r.key)).toEqual(["cafe"]);
    expect((await store.search("DEPLOY")).map((r) => r.key)).toEqual(["cafe"]);
  });

  it("always returns a note holding the exact rare word, even when other notes outscore it", async () => {
    const store = open();
    for (let i = 0; i < 8; i++) {
      await store.save(`deploy-schedule-${i}`, "Deploy schedule: deploy on friday, deploy again monday. Deploy deploy schedule.");
    }
    for (let i = 0; i < 300; i++) await store.save(`note-${i}`, `Ordinary note ${i} about groceries, weather and errands.`);
    const words = Array.from({ length: 400 }, (_, i) => `word${i % 50}`).join(" ");
    await store.save("old-incident", `${words} the outage was caused by qzxvortel in the load balancer ${words}`);
    const results = await store.search("deploy schedule qzxvortel");
    expect(results).toHaveLength(5);
    expect(results.map((r) => r.key)).toContain("old-incident");
    expect(results.at(-1)?.key).toBe("old-incident");
    expect(results.at(-1)?.snippet).toContain("qzxvortel");
  });
});

describe.each([
  { label: "watching the folder", watch: true },
  { label: "without a watcher", watch: false },
])("MemoryStore search follows the folder, $label", ({ watch }) => {
  it("finds a note edited by hand, a note dropped in, and forgets a note removed", async () => {
    const store = open({ watch });
    await store.save("plans", "We will paint the fence blue.");
    await store.save("gone", "This note mentions a walrus.");
    expect((await store.search("blue")).map((r) => r.key)).toEqual(["plans"]);
    expect((await store.search("walrus")).map((r) => r.key)).toEqual(["gone"]);

    await writeFile(join(memoryDir(), "plans.md"), "We will paint the fence green.");
    await writeFile(join(memoryDir(), "Dropped in.md"), "A hand-written note about a green kayak.");
    await unlink(join(memoryDir(), "gone.md"));

    expect(await store.search("blue")).toEqual([]);
    expect((await store.search("green")).map((r) => r.key).sort()).toEqual(["Dropped in", "plans"]);
    expect(await store.search("walrus")).toEqual([]);
  });

  it("sees an in-place edit of the same size", async () => {
    const store = open({ watch });
    await store.save("code", "door code alpha");
    expect((await store.search("alpha")).length).toBe(1);
    const file = join(memoryDir(), "code.md");
    const before = await stat(file);
    await writeFile(file, "door code gamma");
    expect((await stat(file)).size).toBe(before.size);
    expect((await store.search("gamma")).map((r) => r.key)).toEqual(["code"]);
    expect(await store.search("alpha")).toEqual([]);
  });

  it("survives the folder being removed and created again", async () => {
    const store = open({ watch });
    await store.save("first", "kiwi");
    expect((await store.search("kiwi")).length).toBe(1);
    await rm(memoryDir(), { recursive: true });
    expect(await store.search("kiwi")).toEqual([]);
    await store.save("second", "kiwi again");
    expect((await store.search("kiwi")).map((r) => r.key)).toEqual(["second"]);
  });
});
