// The default workspace is the person's, in their home: run in a git project, miniclaw writes nothing there, and
// what it remembers and its conversations follow the person to the next project.
import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCli } from "../helpers/cli.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

/** A git project with one committed file, clean. */
async function project(base: string, name: string): Promise<string> {
  const dir = join(base, name);
  await mkdir(dir);
  const git = (...args: string[]): string => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: dir, encoding: "utf8" });
  git("init", "-q");
  execFileSync("sh", ["-c", "echo hello > README.md"], { cwd: dir });
  git("add", "README.md");
  git("commit", "-qm", "first");
  return dir;
}

describe("the default workspace", () => {
  it("lives in the home: a git project stays clean, and memory and sessions follow the person to the next project", async () => {
    const model = await scripted([
      { match: { toolResult: { name: "save_memory" } }, reply: "Noted." },
      { match: { toolResult: { name: "memory_search" } }, reply: (req) => (JSON.stringify(req.body.messages).includes("blue") ? "Your favourite colour is blue." : "I don't know.") },
      { match: { toolResult: { name: "run_command" } }, reply: "Made it." },
      { match: "remember blue", reply: { toolUses: [{ name: "save_memory", input: { key: "colour", content: "favourite colour: blue" } }] } },
      { match: "what colour", reply: { toolUses: [{ name: "memory_search", input: { query: "favourite colour" } }] } },
      { match: "make it", reply: { toolUses: [{ name: "run_command", input: { command: "mkdir -p build" } }] } },
    ]);
    const base = await tempDir("miniclaw-home-");
    const home = join(base, "home");
    const env = cleanEnv({ HOME: home, ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
    const first = await project(base, "first");
    const second = await project(base, "second");

    const saved = await runCli(["run", "remember blue"], { env, cwd: first });
    expect([saved.code, saved.stdout]).toEqual([0, "Noted.\n"]);
    expect(saved.stderr).toContain(`Created a new workspace at ${join(home, ".miniclaw", "workspace")} from the templates.`);
    const made = await runCli(["run", "--permission-mode", "bypassPermissions", "make it"], { env, cwd: first });
    expect([made.code, made.stdout]).toEqual([0, "Made it.\n"]);
    // The project holds only what the user asked for: the folder the command made, nothing of miniclaw's.
    expect(execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: first, encoding: "utf8" })).toBe("");
    expect((await readdir(first)).sort()).toEqual([".git", "README.md", "build"]);

    const recalled = await runCli(["run", "what colour"], { env, cwd: second });
    expect([recalled.code, recalled.stdout]).toEqual([0, "Your favourite colour is blue.\n"]);
    expect(recalled.stderr).not.toContain("Created a new workspace");
    expect(execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: second, encoding: "utf8" })).toBe("");
    const workspace = join(home, ".miniclaw", "workspace");
    expect(await readFile(join(workspace, "memory", "colour.md"), "utf8")).toContain("favourite colour: blue");
    expect((await readdir(join(workspace, "sessions"))).filter((name) => name.endsWith(".jsonl"))).toHaveLength(3);
  });
});
