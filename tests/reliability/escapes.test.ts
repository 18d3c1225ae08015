// Escapes: file paths, symlinks, memory keys, skill names and session keys that try to leave their folders are refused
// or land inside; nothing outside changes and nothing from outside reaches the model.
import { mkdir, readFile, readdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { SessionStore } from "../../src/sessions/store.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { makeTempDir } from "../helpers/tool-context.js";
import { TEST_AGENT, turnOptions } from "../helpers/turn.js";

const SECRET = "OUTSIDE-SECRET-7f3a9";
let attempts = 0;
let model: ScriptedModel | undefined;
let root: string;
let cwd: string;
let workspace: string;
let outside: string;

afterAll(() => console.info(`[reliability] escape attempts refused: ${attempts}`));
afterEach(async () => {
  await model?.close();
  model = undefined;
});

beforeEach(async () => {
  root = await makeTempDir("miniclaw-escape-");
  cwd = join(root, "cwd");
  workspace = join(root, "ws");
  outside = join(root, "outside");
  await mkdir(join(cwd, ".git", "hooks"), { recursive: true });
  await mkdir(join(workspace, "skills"), { recursive: true });
  await mkdir(join(outside, "sub"), { recursive: true });
  await writeFile(join(outside, "secret.txt"), `${SECRET}\n`);
  await writeFile(join(outside, "sub", "deep.txt"), `${SECRET} deep\n`);
  await writeFile(join(outside, "SKILL.md"), `---\nname: planted\ndescription: a skill outside\n---\n${SECRET}\n`);
  await writeFile(join(cwd, ".env"), `TOKEN=${SECRET}\n`);
  await symlink(outside, join(cwd, "link-out"));
  await symlink(join(outside, "secret.txt"), join(cwd, "link-file"));
  await symlink(join(outside, "new-through-dangling.txt"), join(cwd, "dangling"));
  await symlink(join(outside, "sub"), join(workspace, "link-sub"));
});

/** Every file under `dir` with its content (symlinks not followed), for before/after comparison. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = await readFile(path, "utf8");
  }
  return out;
}

/** Runs one turn whose single response makes every call in `calls`; returns the tool results. */
async function attempt(calls: Array<{ name: string; input: Record<string, unknown> }>): Promise<Array<Extract<AgentEvent, { type: "tool_result" }>>> {
  attempts += calls.length;
  model = await startScriptedModel([
    { match: "escape", reply: { toolUses: calls } },
    { reply: "done" },
  ]);
  const events: AgentEvent[] = [];
  const result = await runAgentTurn("agent:main:escape", "escape", TEST_AGENT, turnOptions(model, workspace, events, { cwd, builtinTools: true, tools: [] }));
  expect(result.stopReason).toBe("end_turn");
  expect(model.rejected).toEqual([]);
  expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain(SECRET);
  return events.filter((e): e is Extract<AgentEvent, { type: "tool_result" }> => e.type === "tool_result");
}

describe("file paths that leave the allowed folders", () => {
  it("are refused for reading, by .., absolute paths, symlinks and secret names, and nothing from outside reaches the model", async () => {
    const paths = [
      "../outside/secret.txt",
      join(outside, "secret.txt"),
      "link-out/secret.txt",
      "link-out/sub/deep.txt",
      "link-file",
      "./link-out/../link-out/secret.txt",
      "link-out/sub/../secret.txt",
      `${cwd}/../outside/secret.txt`,
      "../ws/link-sub/deep.txt",
      join(workspace, "link-sub", "deep.txt"),
      ".env",
      "/proc/self/environ",
      "//" + join(outside, "secret.txt"),
      "../../../../../../../../" + join(outside, "secret.txt"),
    ];
    const results = await attempt(paths.map((path) => ({ name: "read_file", input: { path } })));
    expect(results.map((r) => [r.isError, r.content.includes(SECRET)])).toEqual(paths.map(() => [true, false]));
  });

  it("are refused for writing and editing, by .., absolute paths, symlinks, dangling links, .git and the approvals file", async () => {
    const before = await snapshot(root);
    const writes = [
      "../outside/w1.txt",
      join(outside, "w2.txt"),
      "link-out/w3.txt",
      "link-out/sub/w4.txt",
      "link-file",
      "dangling",
      "link-out/../link-out/w5.txt",
      "../ws/link-sub/w6.txt",
      ".git/hooks/pre-commit",
      join(workspace, "exec-approvals.json"),
      "../ws/exec-approvals.json.lock",
      ".env",
    ];
    const results = await attempt([
      ...writes.map((path) => ({ name: "write_file", input: { path, content: "PWNED" } })),
      { name: "edit_file", input: { path: "link-file", old_string: "OUTSIDE", new_string: "PWNED" } },
      { name: "edit_file", input: { path: "link-out/sub/deep.txt", old_string: "deep", new_string: "PWNED" } },
    ]);
    expect(results.map((r) => r.isError)).toEqual([...writes, 1, 2].map(() => true));
    const after = await snapshot(root);
    delete after[relative(root, new SessionStore(join(workspace, "sessions")).fileFor("agent:main:escape"))];
    expect(after).toEqual(before);
  });
});

describe("memory keys that try to leave the memory folder", () => {
  it("land as files inside it, and a symlinked note is replaced, not written through", async () => {
    const keys = ["../../outside/secret", "/etc/passwd", "..", ".", "a/../../b", "..\\..\\win", "%2e%2e%2fenc", "\u0000nul", "con", "．．／fullwidth", "link"];
    await mkdir(join(workspace, "memory"), { recursive: true });
    await symlink(join(outside, "secret.txt"), join(workspace, "memory", "link.md"));
    const before = await snapshot(outside);
    const results = await attempt(keys.map((key) => ({ name: "save_memory", input: { key, content: "PWNED note" } })));
    expect(results.map((r) => [r.isError, r.content])).toEqual(keys.map(() => [false, expect.stringMatching(/^Saved memory note|^Replaced memory note/)]));
    expect(await snapshot(outside)).toEqual(before);
    const notes = await readdir(join(workspace, "memory"), { withFileTypes: true });
    expect(notes.every((entry) => entry.isFile() && entry.name.endsWith(".md"))).toBe(true);
    expect(notes).toHaveLength(keys.length);
    expect((await readdir(root)).sort()).toEqual(["cwd", "outside", "ws"]);
  });
});

describe("skill names that try to reach files", () => {
  it("are unknown skills, and a skill outside the skill folders is never loaded by name or path", async () => {
    const names = ["../../outside", "../outside/SKILL.md", join(outside, "SKILL.md"), "planted", "/etc/passwd", "repo-summary/../../outside"];
    const results = await attempt(names.map((name) => ({ name: "load_skill", input: { name } })));
    expect(results.map((r) => [r.isError, /Unknown skill/.test(r.content)])).toEqual(names.map(() => [true, true]));
  });
});

describe("session keys that try to leave the sessions folder", () => {
  it("become files inside it, each key its own file, and load back under their own key", async () => {
    const dir = join(workspace, "sessions");
    const store = new SessionStore(dir);
    const keys = ["../../outside/x", "/etc/passwd", "..", ".", "a/../../b", "..\\..\\w", "con", "CON", "Con", "nul.jsonl", "\u0000", "k".repeat(5_000), "ü/../..", "agent:main:../../x"];
    for (const key of keys) {
      attempts++;
      await store.append(key, [{ type: "message", id: `m-${keys.indexOf(key)}`, ts: 1, message: { role: "user", content: `for ${key.slice(0, 40)}` } }]);
    }
    const files = await readdir(dir, { withFileTypes: true });
    expect(files.filter((f) => f.isFile() && f.name.endsWith(".jsonl"))).toHaveLength(keys.length);
    expect(files.every((f) => dirname(join(dir, f.name)) === dir)).toBe(true);
    expect((await readdir(root)).sort()).toEqual(["cwd", "outside", "ws"]);
    expect(await snapshot(outside)).toEqual({ "SKILL.md": expect.any(String), "secret.txt": `${SECRET}\n`, [join("sub", "deep.txt")]: `${SECRET} deep\n` });
    for (const key of keys) {
      const session = await store.load(key, { mode: "read" });
      expect(session.messages[0]!.content, key.slice(0, 40)).toBe(`for ${key.slice(0, 40)}`);
    }
  });

  it("refuses an empty key and a key that is not well-formed Unicode", async () => {
    const store = new SessionStore(join(workspace, "sessions"));
    for (const key of ["", "\uD800"]) {
      attempts++;
      await expect(store.append(key, [{ type: "message", id: "m", ts: 1, message: { role: "user", content: "x" } }])).rejects.toThrow(/invalid session key/);
    }
  });
});
