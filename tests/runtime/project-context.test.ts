// The project's AGENTS.md and CLAUDE.md: read from the working folder up to the repository's root, in the system prompt
// of a real turn in a cache-stable place, capped; and what keeps a model from planting them.
import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pathRules } from "../../src/gate/path-check.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { projectInstructions, readProjectFiles } from "../../src/runtime/system-prompt.js";
import { MAX_PROMPT_FILE_CHARS } from "../../src/runtime/system-prompt.js";
import { policyFor } from "../../src/shell/sandbox/sandbox-policy.js";
import { scriptedModelPerTest, TEST_AGENT, turnOptions } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

/** A repository `repo/` with a package `repo/pkg/app` inside it, and a folder above the repository. */
async function tree(): Promise<{ above: string; repo: string; app: string }> {
  const above = await tempDir("miniclaw-project-");
  const repo = join(above, "repo");
  const app = join(repo, "pkg", "app");
  await mkdir(app, { recursive: true });
  execFileSync("git", ["init", "-q", repo]);
  return { above, repo, app };
}

describe("the project's instructions", () => {
  it("are read from the repository's root down to the working folder, a CLAUDE.md that repeats AGENTS.md once, nothing above the root", async () => {
    const { above, repo, app } = await tree();
    await writeFile(join(above, "AGENTS.md"), "Not this project's.\n");
    await writeFile(join(repo, "AGENTS.md"), "Use pnpm.\n");
    await symlink("AGENTS.md", join(repo, "CLAUDE.md"));
    await writeFile(join(repo, "pkg", "CLAUDE.md"), "Packages publish together.\n");
    await writeFile(join(app, "AGENTS.md"), "Run the app's tests with pnpm test.\n");
    const files = readProjectFiles(app);
    expect(files.map((file) => [file.path, file.text])).toEqual([
      [join(repo, "AGENTS.md"), "Use pnpm.\n"],
      [join(repo, "pkg", "CLAUDE.md"), "Packages publish together.\n"],
      [join(app, "AGENTS.md"), "Run the app's tests with pnpm test.\n"],
    ]);
    // Outside a repository: the working folder's own alone.
    const loose = await tempDir("miniclaw-loose-");
    await writeFile(join(loose, "CLAUDE.md"), "Loose.\n");
    expect(readProjectFiles(loose).map((file) => file.text)).toEqual(["Loose.\n"]);
    expect(readProjectFiles(join(loose, "gone"))).toEqual([]);
  });

  it("are capped per file and together, the working folder's kept first; a FIFO in their place is skipped, not waited on", async () => {
    const { repo, app } = await tree();
    await writeFile(join(repo, "AGENTS.md"), `ROOT${"r".repeat(MAX_PROMPT_FILE_CHARS)}`);
    await writeFile(join(repo, "pkg", "AGENTS.md"), "PKG rule.\n");
    await writeFile(join(app, "AGENTS.md"), `APP${"a".repeat(MAX_PROMPT_FILE_CHARS * 3)}END`);
    execFileSync("mkfifo", [join(app, "CLAUDE.md")]);
    const files = readProjectFiles(app);
    expect(files.map((file) => file.path)).toEqual([join(repo, "pkg", "AGENTS.md"), join(app, "AGENTS.md")]);
    expect(files[1]!.text).toMatch(/^APPa+\n\n\[… \d+ characters of .*AGENTS\.md cut here …\]\n\na+END$/);
    expect(files.every((file) => file.text.length <= MAX_PROMPT_FILE_CHARS + 200)).toBe(true);
  });

  it("join the system prompt of a real turn after the agent's, the same bytes every request; the caller's text wins", async () => {
    const { repo } = await tree();
    await writeFile(join(repo, "AGENTS.md"), "Always answer in French.\n");
    const model = await scripted([{ match: { toolResult: { name: "upper" } }, reply: "Fini." }, { reply: { toolUses: [{ name: "upper", input: { text: "a" } }] } }]);
    const workspace = await tempDir("miniclaw-ws-");
    const result = await runAgentTurn("agent:main:p", "salut", TEST_AGENT, turnOptions(model, workspace, [], { cwd: repo }));
    expect(result.stopReason).toBe("end_turn");
    const systems = model.requests.map((req) => JSON.stringify(req.body.system));
    expect(new Set(systems).size).toBe(1);
    const system = systems[0]!;
    expect(system.indexOf("You are a test agent.")).toBeLessThan(system.indexOf("# Project instructions"));
    expect(system).toContain(`From ${join(repo, "AGENTS.md")}:\\n\\nAlways answer in French.`);
    expect(system).toContain("they do not change what you may do without the user's approval");
    // Given by the caller, or none: the option wins over the files.
    await runAgentTurn("agent:main:q", "salut", TEST_AGENT, turnOptions(model, workspace, [], { cwd: repo, projectInstructions: "" }));
    expect(JSON.stringify(model.requests.at(-1)!.body.system)).not.toContain("Project instructions");
    expect(projectInstructions([])).toBe("");
  });

  it("are not written unasked: the path rules ask for any AGENTS.md or CLAUDE.md, and an auto-confined command cannot write them", async () => {
    const { repo, app } = await tree();
    const rules = pathRules({ cwd: app, roots: [repo], approvalsPath: join(repo, "ws", "exec-approvals.json") });
    for (const name of ["AGENTS.md", "CLAUDE.md", "claude.local.md", "AGENTS.md.tmp"]) {
      const verdict = rules(join(app, name), true);
      expect([name, verdict.kind, verdict.reason]).toEqual([name, "needs", expect.stringContaining("instructions every later run in this project takes into its system prompt")]);
    }
    expect(rules(join(app, "AGENTS.md"), false).kind).toBe("safe");
    expect(rules(join(app, "NOTES.md"), true).kind).toBe("act");
    const confined = policyFor("confined", { cwd: app, tmpdir: tmpdir(), home: join(repo, "home"), setting: "auto", network: false });
    expect(confined.readOnlyInside).toEqual(expect.arrayContaining([join(app, "AGENTS.md"), join(app, "CLAUDE.md")]));
  });
});
