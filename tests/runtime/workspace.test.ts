// The workspace from the templates: created when missing or empty, filled in by init without overwriting, left alone otherwise.
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { TEMPLATE_WORKSPACE } from "../../src/paths.js";
import { ensureWorkspace, initWorkspace } from "../../src/runtime/workspace.js";
import { tempDir } from "../helpers/temp-dir.js";

const TEMPLATE_FILES = ["agents/main/SOUL.md", "agents/researcher/SOUL.md", "cron.json", "HEARTBEAT.md", "README.md"];

let dir: string;
beforeEach(async () => {
  dir = await tempDir("miniclaw-ws-");
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function template(file: string): Promise<string> {
  return readFile(join(TEMPLATE_WORKSPACE, file), "utf8");
}

describe("ensureWorkspace", () => {
  it("creates a missing workspace from the templates and says it did", async () => {
    const workspace = join(dir, "a", "ws");
    expect(await ensureWorkspace(workspace)).toBe(true);
    for (const file of TEMPLATE_FILES) expect(await readFile(join(workspace, file), "utf8")).toBe(await template(file));
  });

  it("fills an existing empty folder, and one holding only hidden entries", async () => {
    expect(await ensureWorkspace(dir)).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(["HEARTBEAT.md", "README.md", "agents", "cron.json"]);
    const hidden = join(dir, "hidden");
    await mkdir(hidden);
    await writeFile(join(hidden, ".DS_Store"), "x");
    expect(await ensureWorkspace(hidden)).toBe(true);
    expect(await readFile(join(hidden, "agents", "main", "SOUL.md"), "utf8")).toBe(await template("agents/main/SOUL.md"));
  });

  it("leaves a folder with files in it as it is", async () => {
    await writeFile(join(dir, "notes.txt"), "mine");
    expect(await ensureWorkspace(dir)).toBe(false);
    expect(await readdir(dir)).toEqual(["notes.txt"]);
  });

  it("refuses a file standing where the workspace should be", async () => {
    const file = join(dir, "ws");
    await writeFile(file, "");
    await expect(ensureWorkspace(file)).rejects.toThrow(ConfigError);
    await expect(ensureWorkspace(file)).rejects.toThrow(/is not a folder/);
  });
});

describe("initWorkspace", () => {
  it("copies only the files that are missing and never overwrites one", async () => {
    await mkdir(join(dir, "agents", "main"), { recursive: true });
    await writeFile(join(dir, "agents", "main", "SOUL.md"), "---\nname: Mine\n---\nmine\n");
    await writeFile(join(dir, "cron.json"), '{"jobs": []}');
    const result = await initWorkspace(dir);
    expect(result).toEqual({ created: ["agents/researcher/SOUL.md", "HEARTBEAT.md", "README.md"], kept: ["agents/main/SOUL.md", "cron.json"] });
    expect(await readFile(join(dir, "agents", "main", "SOUL.md"), "utf8")).toBe("---\nname: Mine\n---\nmine\n");
    expect(await readFile(join(dir, "cron.json"), "utf8")).toBe('{"jobs": []}');
    expect(await readFile(join(dir, "HEARTBEAT.md"), "utf8")).toBe(await template("HEARTBEAT.md"));
    expect(await initWorkspace(dir)).toEqual({ created: [], kept: TEMPLATE_FILES.slice().sort((a, b) => a.localeCompare(b)) });
  });
});
