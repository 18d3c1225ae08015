// The child sandbox end to end: scripted turns try the attacks of issue 11 (sed bracket scripts, bare repositories that
// name programs in their config); whatever the gate decides, no payload runs and nothing appears outside.
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import type { PermissionMode } from "../../src/gate/context.js";
import { startScriptedModel, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { makeTempDir } from "../helpers/tool-context.js";
import { TEST_AGENT, turnOptions } from "../helpers/turn.js";

type ToolResult = Extract<AgentEvent, { type: "tool_result" }>;

let model: ScriptedModel | undefined;
afterEach(async () => {
  expect(model?.rejected ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

/** A project folder and an `outside` folder beside it, where every payload tries to leave its mark. */
async function project(): Promise<{ cwd: string; outside: string; workspace: string }> {
  const root = await makeTempDir("miniclaw-sandbox-");
  const cwd = join(root, "project");
  const outside = join(root, "outside");
  await mkdir(cwd);
  await mkdir(outside);
  return { cwd, outside, workspace: join(cwd, "ws") };
}

/** One turn of `rules` with the built-in tools; nobody approves anything unless the mode bypasses the gate. */
async function attackTurn(rules: Rule[], dirs: { cwd: string; workspace: string }, mode: PermissionMode = "default"): Promise<ToolResult[]> {
  model = await startScriptedModel(rules);
  const events: AgentEvent[] = [];
  const options = turnOptions(model, dirs.workspace, events, { cwd: dirs.cwd, builtinTools: true, tools: [], permissionMode: mode });
  const result = await runAgentTurn("agent:main:sandbox", "attack", TEST_AGENT, options);
  expect(result.stopReason).toBe("end_turn");
  return events.filter((e): e is ToolResult => e.type === "tool_result");
}

/** The files of a bare repository whose config is `config`, as write_file calls under `dir`. */
function bareRepoWrites(dir: string, config: string): Array<{ name: string; input: { path: string; content: string } }> {
  const files: Record<string, string> = { HEAD: "ref: refs/heads/main\n", config, "objects/keep": "", "refs/keep": "", "w/keep": "", a: "a\n", b: "b\n" };
  return Object.entries(files).map(([path, content]) => ({ name: "write_file", input: { path: `${dir}/${path}`, content } }));
}

const diffExternal = (outside: string): string => `[diff]\n\texternal = "touch ${outside}/PWNED-external; echo"\n`;
const fsmonitor = (outside: string): string =>
  `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = "w"\n\tfsmonitor = "touch ${outside}/PWNED-fsmonitor; false"\n`;

describe("sed scripts that hide commands inside bracket expressions", () => {
  it("run no program and write no file, in the default mode with nobody to approve", async () => {
    const dirs = await project();
    const commands = [
      "echo a | sed 's/[/x/g;s]]/R/;e id > ../outside/PWNED #]g'",
      "echo a | sed -n '1,/[/p;s]]/e id > ../outside/PWNED #]g'",
      "echo a | sed 's/[/x/g;s]]/R/w ../outside/PWNED #]g'",
    ];
    const results = await attackTurn(
      [
        { match: "attack", reply: { toolUses: commands.map((command) => ({ name: "run_command", input: { command } })) } },
        { reply: "done" },
      ],
      dirs,
    );
    expect(results.map((r) => r.name)).toEqual(commands.map(() => "run_command"));
    for (const r of results) expect(r.content).not.toMatch(/uid=\d+/);
    expect(await readdir(dirs.outside)).toEqual([]);
  });
});

describe("a bare repository whose config names a program", () => {
  it.each([
    ["diff.external", "x", diffExternal, "cd x && git diff --no-index a b"],
    ["core.fsmonitor", "y", fsmonitor, "cd y && git status"],
  ] as const)("written with write_file (%s), then used by git, runs nothing: read-only in the default mode, or run as approved in bypass mode", async (_, dir, config, safe) => {
    // In bypass mode a safe command is still judged read-only; the `touch` makes it one that runs only because the mode allows it.
    for (const [mode, command] of [["default", safe], ["bypassPermissions", `${safe}; touch ran`]] as const) {
      const dirs = await project();
      const results = await attackTurn(
        [
          { match: "attack", reply: { toolUses: bareRepoWrites(dir, config(dirs.outside)) } },
          { match: { toolResult: { name: "write_file" } }, reply: { toolUses: [{ name: "run_command", input: { command } }] } },
          { reply: "done: {{tool_result}}" },
        ],
        dirs,
        mode,
      );
      expect(results.at(-1)?.name).toBe("run_command");
      expect(await readdir(dirs.outside), mode).toEqual([]);
    }
  });

  it("already in the checkout (no write at all), runs nothing when the model uses git there", async () => {
    const dirs = await project();
    for (const [dir, config] of [["x", diffExternal(dirs.outside)], ["y", fsmonitor(dirs.outside)]] as const) {
      for (const sub of ["objects", "refs", "w"]) await mkdir(join(dirs.cwd, dir, sub), { recursive: true });
      for (const [path, content] of Object.entries({ HEAD: "ref: refs/heads/main\n", config, "objects/keep": "", "refs/keep": "", a: "a\n", b: "b\n" })) {
        await writeFile(join(dirs.cwd, dir, path), content);
      }
    }
    const commands = ["cd x && git diff --no-index a b", "cd x && git log -p", "cd y && git status", "cd y && git diff", "cd y && git ls-files"];
    const results = await attackTurn(
      [
        { match: "attack", reply: { toolUses: commands.map((command) => ({ name: "run_command", input: { command } })) } },
        { reply: "done" },
      ],
      dirs,
    );
    expect(results).toHaveLength(commands.length);
    expect(await readdir(dirs.outside)).toEqual([]);
  });
});
