// save_memory and memory_search: the tools' answers, and memory shared across agents through the loop.
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { MemoryStore } from "../../src/memory/store.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import type { ToolContext } from "../../src/tools/define.js";
import { createMemoryTools } from "../../src/tools/memory.js";
import { clientFor } from "../helpers/scripted.js";
import { tempDir } from "../helpers/temp-dir.js";

let workspace: string;
let store: MemoryStore;
let model: ScriptedModel | undefined;
beforeEach(async () => {
  workspace = await tempDir("miniclaw-memory-tools-");
  store = MemoryStore.forWorkspace(workspace);
});
afterEach(async () => {
  store.close();
  await model?.close();
  model = undefined;
  await rm(workspace, { recursive: true, force: true });
});

const context = {} as ToolContext;

describe("memory tools", () => {
  it("are save_memory (writes) and memory_search (read-only) with the documented inputs", () => {
    const [save, search] = createMemoryTools(store);
    expect(save?.name).toBe("save_memory");
    expect(save?.access).toBe("act");
    expect(save?.inputSchema).toMatchObject({ required: ["key", "content"] });
    expect(search?.name).toBe("memory_search");
    expect(search?.access).toBe("read");
    expect(search?.inputSchema).toMatchObject({ required: ["query"] });
  });

  it("report a save, a replacement, the matches and plainly when nothing matched", async () => {
    const [save, search] = createMemoryTools(store);
    expect(await save?.run({ key: "coffee", content: "Dark roast, no sugar." }, context)).toBe('Saved memory note "coffee" (21 bytes).');
    expect(await save?.run({ key: "coffee", content: "Dark roast, oat milk." }, context)).toBe('Replaced memory note "coffee" (21 bytes).');
    const found = String(await search?.run({ query: "roast" }, context));
    expect(found).toMatch(/^1 note matched "roast", best first/);
    expect(found).toContain("1. coffee (updated ");
    expect(found).toContain("Dark roast, oat milk.");
    expect(await search?.run({ query: "tea" }, context)).toBe('No memory notes matched "tea".');
  });

  it("turn a bad key into a ToolError", async () => {
    const [save] = createMemoryTools(store);
    await expect(Promise.resolve().then(() => save?.run({ key: "   ", content: "x" }, context))).rejects.toBeInstanceOf(ToolError);
  });

  it("let one agent save a note that another agent finds in its own session", async () => {
    model = await startScriptedModel([
      { match: "remember", times: 1, reply: { toolUses: [{ name: "save_memory", input: { key: "rust-async", content: "Async closures were stabilised in Rust 1.85." } }] } },
      { match: { toolResult: { name: "save_memory" } }, reply: "Saved." },
      { match: "what do we know", times: 1, reply: { toolUses: [{ name: "memory_search", input: { query: "async closures" } }] } },
      { match: { toolResult: { name: "memory_search" } }, reply: "From memory: {{tool_result}}" },
    ]);
    const tools = createMemoryTools(store);
    const options = { runtime: { workspace, client: clientFor(model), builtinTools: false }, tools };
    await runAgentTurn("agent:main:main", "remember this", { id: "main", name: "Jarvis", prompt: "Jarvis." }, options);
    const result = await runAgentTurn("agent:researcher:main", "what do we know about async closures?", { id: "researcher", name: "Scout", prompt: "Scout." }, options);
    expect(model.rejected).toEqual([]);
    expect(result.text).toContain("1. rust-async");
    expect(result.text).toContain("Async closures were stabilised in Rust 1.85.");
    expect(await readFile(join(workspace, "memory", "rust-async.md"), "utf8")).toBe("Async closures were stabilised in Rust 1.85.");
  });
});
