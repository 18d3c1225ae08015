// A subagent in the REPL on a real terminal: its lines indented under the delegate line, its approval question naming it, its session listed under the parent's.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import type { Rule } from "../../src/testing/index.js";
import { cleanEnv } from "../helpers/cli.js";
import { startTerminal } from "../helpers/pty.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

const RULES: Rule[] = [
  { match: { system: /You are Scout/, toolResult: { name: "run_command" } }, reply: "The tests pass." },
  { match: { system: /You are Scout/ }, reply: { toolUses: [{ name: "run_command", input: { command: "npm test --version" } }] } },
  { match: { toolResult: { name: "delegate" } }, reply: "Scout says: {{tool_result}}" },
  { reply: { toolUses: [{ name: "delegate", input: { agent: "researcher", task: "Check that the tests pass\nand say so in one line" } }] } },
];

describe("a subagent in the REPL", () => {
  it("shows the delegate line, the child's lines indented under it, its approval question naming it, its end with requests and cost; /sessions lists its session under the parent's", async () => {
    const model = await scripted(RULES);
    const dir = await tempDir("miniclaw-repl-sub-");
    const workspace = join(dir, "ws");
    await ensureWorkspace(workspace);
    await writeFile(join(workspace, "agents", "main", "SOUL.md"), "---\nname: Jarvis\ndelegates: [researcher]\n---\nYou are Jarvis.\n");
    await writeFile(join(workspace, "agents", "researcher", "SOUL.md"), "---\nname: Scout\nprefix: /research\n---\nYou are Scout.\n");
    const term = startTerminal(["--workspace", workspace], { env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }), cwd: dir });
    await term.waitFor(/Jarvis› $/);
    let mark = term.output().length;
    term.type("ask Scout about the tests\r");
    await term.waitFor(/Allow "npm test --version"\? \[y\]es once/, { from: mark });
    term.type("y");
    await term.waitFor(/Scout says: The tests pass\.\n[\s\S]*Jarvis› $/, { from: mark });
    const lines = term.output().slice(mark).split("\n");
    expect(lines.filter((line) => /^ *(→|✓|✗|approval|Subagent|Allow)/.test(line))).toEqual([
      "→ delegate researcher: Check that the tests pass",
      "    → run_command: npm test --version",
      "Subagent researcher: run_command needs approval: npm runs code (an interpreter or build tool)",
      expect.stringMatching(/^Allow "npm test --version"\? \[y\]es once \/ \[a\]lways \/ \[n\]o \/ \[d\]eny always yes$/),
      "      approval: allow once — npm test --version (npm runs code (an interpreter or build tool))",
      expect.stringMatching(/^ {6}✓ /),
      expect.stringMatching(/^ {2}✓ researcher done \(2 requests, \$\d+\.\d{4}\)$/),
    ]);
    expect(model.requests).toHaveLength(4);

    mark = term.output().length;
    term.type("/sessions\r");
    await term.waitFor(/Jarvis› $/, { from: mark });
    const listed = term.output().slice(mark).split("\n").filter((line) => /agent:/.test(line)).map((line) => line.replace(/ {2,}(main|researcher) +\d+ +~\d+ .*$/, ""));
    expect(listed).toEqual([expect.stringMatching(/^ {2}agent:main:main$/), expect.stringMatching(/^ {4}└ agent:researcher:sub-\S+$/)]);
    term.type("\x04");
    expect(await term.exited).toBe(0);
  }, 30_000);
});
