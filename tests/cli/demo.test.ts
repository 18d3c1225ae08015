import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

/** Every file under `dir` with its content, by relative path (folders as "(folder)"). */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        files[relative(dir, path)] = "(folder)";
        await walk(path);
      } else files[relative(dir, path)] = await readFile(path, "utf8");
    }
  };
  await walk(dir);
  return files;
}

describe("miniclaw demo", () => {
  it("runs in a temporary workspace it names and removes at the end, and leaves the user's workspace as it was", async () => {
    const dir = await tempDir("miniclaw-demo-test-");
    const own = join(dir, "workspace");
    await ensureWorkspace(own);
    await mkdir(join(own, "memory"), { recursive: true });
    await writeFile(join(own, "memory", "preferences.md"), "I like coffee.\n");
    const before = await snapshot(own);

    const input = ["hello", "remember that I like green tea", "/research anything new?", "what files are here?", "/sessions", ""].join("\n");
    // MINICLAW_WORKSPACE names the user's workspace: the demo does not read it.
    const run = await runMain(["demo"], { env: cleanEnv({ MINICLAW_WORKSPACE: own }), cwd: dir, input });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^miniclaw demo: the scripted model "scripted-demo" \(a few canned lines, at http:\/\/127\.0\.0\.1:\d+\) answers instead of Claude/m);
    expect(run.stdout).toMatch(/Hello! I am the scripted demo model/);
    expect(run.stdout).toMatch(/Noted: /);
    // Scout thinks and searches the web through the scripted stand-in for the API's server tools.
    expect(run.stdout).toMatch(/Node\.js 20 reached its end of life/);
    expect(run.stderr + run.stdout).toMatch(/→ web_search: "Node\.js 20 end of life date"\n\s*✓ 2 results/);
    // The demo did write, in its own workspace: the researcher's session is listed there.
    expect(run.stdout + run.stderr).toMatch(/agent:researcher:/);

    const named = /It runs in a temporary workspace, (\S+), removed when you leave: your own workspace is not touched\./.exec(run.stderr)?.[1];
    expect(named).toBeDefined();
    expect(relative(dir, named!).startsWith("..")).toBe(true);
    expect(existsSync(dirname(named!))).toBe(false);
    expect(await snapshot(own)).toEqual(before);
  });

  it("refuses --workspace in one line", async () => {
    const run = await runMain(["demo", "--workspace", "mine"], { env: cleanEnv() });
    expect([run.code, run.stderr]).toEqual([1, "miniclaw demo runs in a temporary workspace of its own and takes no --workspace (your workspace is never touched)\n"]);
  });

  it("asks before the command its hint says asks for approval (line mode has nobody to ask, so it is refused)", async () => {
    const dir = await tempDir("miniclaw-demo-test-");
    const run = await runMain(["demo"], { env: cleanEnv(), cwd: dir, input: "what is running on this machine?\n" });
    expect(run.stderr + run.stdout).toMatch(/needs the user's approval/);
    expect(run.stdout).not.toMatch(/PID/);
  });
});
