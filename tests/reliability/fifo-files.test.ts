// A FIFO in the place of any file miniclaw reads: each reader refuses it, or reads on without it,
// and none waits for a writer that will never come (a FIFO opened to read blocks until one does).
import { execFileSync } from "node:child_process";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readLastRunKey, LAST_RUN_FILE } from "../../src/cli/run.js";
import { MCP_CONFIG_FILE, readMcpConfig } from "../../src/mcp/config.js";
import { MemoryStore } from "../../src/memory/store.js";
import { loadAgents, SOUL_FILE } from "../../src/runtime/agents.js";
import { CRON_FILE, CRON_STATE_FILE, loadCronJobs, readPausedJobs, readRunRecords, RUNS_FILE } from "../../src/cron/index.js";
import { readOutputSchema } from "../../src/loop/output.js";
import { lockPathOf, SessionStore } from "../../src/sessions/store.js";
import { SkillLoader } from "../../src/skills/loader.js";
import { makeTempDir } from "../helpers/tool-context.js";

/** Puts a FIFO at `path` (its folder made), in place of whatever was there. */
async function fifoAt(path: string): Promise<void> {
  await mkdir(join(path, ".."), { recursive: true });
  await rm(path, { force: true });
  execFileSync("mkfifo", [path]);
}

/** How `work` ends, or "still waiting" after a while: a reader that waits on the FIFO never ends. */
async function outcome(work: () => Promise<unknown>): Promise<string> {
  const waiting = new Promise<string>((resolve) => setTimeout(() => resolve("still waiting"), 3_000).unref());
  const done = work().then(
    (value) => `resolved ${JSON.stringify(value) ?? "undefined"}`,
    (error: Error) => `rejected: ${error.message}`,
  );
  return Promise.race([done, waiting]);
}

describe("a FIFO in the place of a file miniclaw reads", () => {
  it("is refused, naming the file, by the readers of the workspace's configuration", async () => {
    const workspace = await makeTempDir();
    await fifoAt(join(workspace, MCP_CONFIG_FILE));
    await fifoAt(join(workspace, CRON_FILE));
    await fifoAt(join(workspace, CRON_STATE_FILE));
    await fifoAt(join(workspace, RUNS_FILE));
    await fifoAt(join(workspace, LAST_RUN_FILE));
    await fifoAt(join(workspace, "schema.json"));
    expect(await outcome(() => readMcpConfig(workspace, {}))).toMatch(/^rejected: .*mcp\.json: cannot be read: not a regular file/);
    expect(await outcome(() => loadCronJobs(workspace))).toMatch(/^rejected: .*cron\.json: cannot be read: not a regular file/);
    expect(await outcome(() => readPausedJobs(workspace))).toMatch(/^rejected: .*state\.json: cannot be read: not a regular file/);
    expect(await outcome(() => readRunRecords(workspace))).toMatch(/^rejected: not a regular file/);
    expect(await outcome(() => readLastRunKey(workspace))).toMatch(/^rejected: .*\.last-run: cannot be read: not a regular file/);
    expect(await outcome(() => readOutputSchema(join(workspace, "schema.json"), "schema.json"))).toBe("rejected: schema.json: cannot be read: not a regular file");
  });

  it("leaves out an agent whose SOUL.md it is, and loads the others", async () => {
    const workspace = await makeTempDir();
    await mkdir(join(workspace, "agents", "main"), { recursive: true });
    await writeFile(join(workspace, "agents", "main", SOUL_FILE), "---\nname: Main\n---\nYou help.\n");
    await fifoAt(join(workspace, "agents", "piped", SOUL_FILE));
    expect(await outcome(async () => Object.keys(await loadAgents(workspace)))).toBe('resolved ["main"]');
  });

  it("is no memory note to read, and a skill's body swapped for one is refused", async () => {
    const dir = await makeTempDir();
    await fifoAt(join(dir, "memory", "piped.md"));
    expect(await outcome(() => MemoryStore.forWorkspace(dir, { watch: false }).read("piped"))).toBe("resolved undefined");
    const skillFile = join(dir, "skills", "tidy", "SKILL.md");
    await mkdir(join(skillFile, ".."), { recursive: true });
    await writeFile(skillFile, "---\nname: tidy\ndescription: Tidies.\n---\nTidy up.\n");
    const skills = new SkillLoader({ dirs: [join(dir, "skills")] });
    await skills.load();
    await fifoAt(skillFile);
    expect(await outcome(() => skills.body("tidy"))).toBe("rejected: not a regular file");
  });

  it("as a session's lock file, gives a worded error instead of waiting", async () => {
    const dir = await makeTempDir();
    const store = new SessionStore(dir, { lockTimeoutMs: 1_000 });
    await fifoAt(lockPathOf(store.fileFor("agent:main:x")));
    expect(await outcome(() => store.lock("agent:main:x"))).toMatch(/^rejected: cannot read the session lock .*not a regular file/);
  });
});
