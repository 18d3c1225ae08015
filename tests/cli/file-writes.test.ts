// What the README says of file writes: inside the working folder and the workspace they run unasked; protected files and the rest ask (refused by run).
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { startScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("file writes of a miniclaw run", () => {
  it("writes inside the working folder and the workspace unasked; outside, secrets, .git, approvals, cron.json and shell writes need approval", async ({ expect }) => {
    const dir = await tempDir("miniclaw-writes-");
    const project = join(dir, "project");
    const workspace = join(dir, "workspace");
    await mkdir(join(project, ".git"), { recursive: true });
    await writeFile(join(project, "todo.md"), "- old item\n");
    const unasked = [
      { name: "write_file", input: { path: "notes.txt", content: "in the working folder" } },
      { name: "edit_file", input: { path: "todo.md", old_string: "old item", new_string: "new item" } },
      { name: "write_file", input: { path: join(workspace, "notes", "plan.md"), content: "in the workspace" } },
    ];
    const asked = [
      { name: "write_file", input: { path: "../outside.txt", content: "x" } },
      { name: "write_file", input: { path: ".env", content: "KEY=x" } },
      { name: "write_file", input: { path: ".git/config", content: "x" } },
      { name: "write_file", input: { path: join(workspace, "exec-approvals.json"), content: '{"allowed": ["*"]}' } },
      { name: "write_file", input: { path: join(workspace, "cron.json"), content: '{"jobs": []}' } },
      { name: "run_command", input: { command: "touch made-by-shell" } },
    ];
    const model = await startScriptedModel([
      { match: "write", reply: { toolUses: [...unasked, ...asked] } },
      { reply: "done" },
    ]);
    try {
      const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
      const run = await runMain(["run", "--workspace", workspace, "write the files"], { env, cwd: project });
      expect(model.rejected).toEqual([]);
      expect(run.code).toBe(0);
      expect(await readFile(join(project, "notes.txt"), "utf8")).toBe("in the working folder");
      expect(await readFile(join(project, "todo.md"), "utf8")).toBe("- new item\n");
      expect(await readFile(join(workspace, "notes", "plan.md"), "utf8")).toBe("in the workspace");
      const content = model.requests[1]?.body?.messages?.at(-1)?.content;
      const results = (Array.isArray(content) ? content : []) as Array<{ is_error?: boolean; content: Array<{ text: string }> }>;
      expect(results.map((r) => r.is_error === true)).toEqual([...unasked.map(() => false), ...asked.map(() => true)]);
      for (const result of results.slice(unasked.length)) expect(result.content[0]?.text).toMatch(/needs the user's approval .*nobody is here to give it/);
      expect(existsSync(join(dir, "outside.txt"))).toBe(false);
      expect(existsSync(join(project, ".env"))).toBe(false);
      expect(existsSync(join(project, ".git", "config"))).toBe(false);
      expect(existsSync(join(workspace, "exec-approvals.json"))).toBe(false);
      expect(await readFile(join(workspace, "cron.json"), "utf8")).not.toBe('{"jobs": []}');
      expect(existsSync(join(project, "made-by-shell"))).toBe(false);
    } finally {
      await model.close();
    }
  });
});
