// The CLI and the workspace: `miniclaw init`, an empty folder filled on first use, a folder without agents explained.
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { TEMPLATE_WORKSPACE } from "../../src/paths.js";
import { startScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

async function folder(): Promise<string> {
  return tempDir("miniclaw-init-");
}

/** A scripted model answering "hi" (checked and closed after the test) and the env pointing at it. */
async function modelEnv(ctx: TestContext): Promise<Record<string, string>> {
  const model = await startScriptedModel([{ match: "hi", reply: "Hello." }]);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  return cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
}

describe.concurrent("miniclaw init", () => {
  it("creates a workspace from the templates and lists each file it created", async ({ expect }) => {
    const dir = await folder();
    const run = await runMain(["init", "ws"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      [
        "created  agents/main/SOUL.md",
        "created  agents/researcher/SOUL.md",
        "created  cron.json",
        "created  HEARTBEAT.md",
        "created  README.md",
        `The workspace ${join(dir, "ws")} is ready: 5 files created, 0 kept.`,
        "",
      ].join("\n"),
    );
    expect(await readFile(join(dir, "ws", "agents", "main", "SOUL.md"), "utf8")).toBe(await readFile(join(TEMPLATE_WORKSPACE, "agents", "main", "SOUL.md"), "utf8"));
  });

  it("never overwrites a file that exists, and says which it kept (the default, in the home)", async ({ expect }) => {
    const dir = await folder();
    const workspace = join(dir, "home", ".miniclaw", "workspace");
    await mkdir(join(workspace, "agents", "main"), { recursive: true });
    await writeFile(join(workspace, "agents", "main", "SOUL.md"), "---\nname: Mine\n---\nMy own agent.\n");
    await writeFile(join(workspace, "HEARTBEAT.md"), "- water the plants\n");
    const run = await runMain(["init"], { cwd: dir, env: cleanEnv({ HOME: join(dir, "home") }) });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("kept     agents/main/SOUL.md (exists)\n");
    expect(run.stdout).toContain("kept     HEARTBEAT.md (exists)\n");
    expect(run.stdout).toContain("created  agents/researcher/SOUL.md\n");
    expect(run.stdout).toContain(`The workspace ${workspace} is ready: 3 files created, 2 kept.`);
    expect(await readFile(join(workspace, "agents", "main", "SOUL.md"), "utf8")).toBe("---\nname: Mine\n---\nMy own agent.\n");
    expect(await readFile(join(workspace, "HEARTBEAT.md"), "utf8")).toBe("- water the plants\n");
    const again = await runMain(["init", workspace], { cwd: dir });
    expect(again.stdout).not.toContain("created");
    expect(again.stdout).toContain("already holds every template file; nothing changed.");
  });

  it("takes the folder from --workspace or MINICLAW_WORKSPACE, needs no credentials, and refuses a file", async ({ expect }) => {
    const dir = await folder();
    expect((await runMain(["init", "--workspace", "a"], { cwd: dir })).code).toBe(0);
    expect((await runMain(["init"], { cwd: dir, env: cleanEnv({ MINICLAW_WORKSPACE: "b" }) })).code).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(["a", "b"]);
    await writeFile(join(dir, "file"), "");
    const refused = await runMain(["init", "file"], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is not a folder/);
    expect((await runMain(["init", "x", "y"], { cwd: dir })).stderr).toMatch(/init takes one folder/);
  });

  it("is listed in --help", async ({ expect }) => {
    expect((await runMain(["--help"])).stdout).toMatch(/^ {2}init \[DIR\] +create a workspace from the templates/m);
  });
});

describe.concurrent("a workspace given to a command", () => {
  it("an existing empty folder (--workspace or MINICLAW_WORKSPACE) is filled with the defaults, said in one line", async (ctx) => {
    const env = await modelEnv(ctx);
    const dir = await folder();
    for (const [args, extra] of [[["--workspace", "one"], {}], [[], { MINICLAW_WORKSPACE: "two" }]] as const) {
      const name = args[1] ?? "two";
      await mkdir(join(dir, name));
      const run = await runMain(["run", ...args, "hi"], { cwd: dir, env: { ...env, ...extra } });
      ctx.expect(run.code).toBe(0);
      ctx.expect(run.stdout).toBe("Hello.\n");
      ctx.expect(run.stderr.split("\n").filter((line) => /workspace/i.test(line))).toEqual([`Created a new workspace at ${join(dir, name)} from the templates.`]);
      ctx.expect(await readdir(join(dir, name, "agents"))).toEqual(["main", "researcher"]);
    }
  });

  it("a SOUL.md naming a tool that does not exist gets a warning naming it and the known tools, and the run goes on", async (ctx) => {
    const env = await modelEnv(ctx);
    const dir = await folder();
    await mkdir(join(dir, "workspace", "agents", "main"), { recursive: true });
    await writeFile(join(dir, "workspace", "agents", "main", "SOUL.md"), "---\nname: Typo\ntools: [read_fil, memory_search]\n---\nBe brief.\n");
    const run = await runMain(["run", "--workspace", "workspace", "hi"], { cwd: dir, env });
    ctx.expect(run.code).toBe(0);
    ctx.expect(run.stdout).toBe("Hello.\n");
    const warnings = run.stderr.split("\n").filter((line) => line.includes("read_fil"));
    ctx.expect(warnings).toHaveLength(1);
    ctx.expect(warnings[0]).toContain(`${join(dir, "workspace", "agents", "main", "SOUL.md")}: tools: no tool named "read_fil" (known tools: run_command, read_file, `);
  });

  it("a folder with files but no agents/ gets one paragraph saying how to add an agent or run miniclaw init", async (ctx) => {
    const env = await modelEnv(ctx);
    const dir = await folder();
    await writeFile(join(dir, "notes.md"), "my notes\n");
    const run = await runMain(["run", "--workspace", ".", "hi"], { cwd: dir, env });
    ctx.expect(run.code).toBe(1);
    ctx.expect(run.stdout).toBe("");
    const lines = run.stderr.trim().split("\n");
    ctx.expect(lines).toHaveLength(1);
    ctx.expect(lines[0]).toContain(`The workspace ${dir} has no agent`);
    ctx.expect(lines[0]).toContain(`create ${join(dir, "agents", "main", "SOUL.md")}`);
    ctx.expect(lines[0]).toContain(`run \`miniclaw init ${dir}\``);
    ctx.expect(await readdir(dir)).toEqual(["notes.md"]);
  });
});
