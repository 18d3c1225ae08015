import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateRequest, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import { BIN, cleanEnv, runCli } from "../helpers/cli.js";
import { isAlive, waitForGroupsGone } from "../helpers/mcp.js";
import { startTerminal, type Terminal } from "../helpers/pty.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { fixtureEntry, mcpWorkspace, uniqueServerName, waitForFixture } from "./mcp-workspace.js";

const scripted = scriptedModelPerTest();

/** "add please" calls the fixture's add, "spawn" its spawn_child; a tool result is answered with "got: <result>". */
function rules(name: string): Rule[] {
  return [
    { match: { toolResult: {} }, reply: "got: {{tool_result}}" },
    { match: /add please/, reply: { toolUses: [{ name: `mcp__${name}__add`, input: { a: 1, b: 2 } }] } },
    { match: /spawn/, reply: { toolUses: [{ name: `mcp__${name}__spawn_child`, input: {} }] } },
    { reply: "I heard: {{user_text}}" },
  ];
}

/** The scripted model, and a workspace whose mcp.json has the fixture as a unique `name` plus any `more` servers. */
async function open(more: Record<string, unknown> = {}) {
  const name = uniqueServerName();
  const model = await scripted(rules(name));
  const { dir, workspace } = await mcpWorkspace({ [name]: fixtureEntry(name), ...more });
  return { name, model, dir, workspace, env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) };
}

/** A pattern matching `text` as it is. */
function literal(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
}

/** Waits for `pattern` on the screen after `from`, and resolves to its first group as a number. */
async function numberOnScreen(term: Terminal, pattern: RegExp, from = 0): Promise<number> {
  await term.waitFor(pattern, { from });
  return Number(pattern.exec(term.output().slice(from))?.[1]);
}

function checkRequests(model: ScriptedModel): void {
  for (const request of model.requests) expect(validateRequest(request.body)).toBeNull();
}

describe("MCP servers in the REPL", () => {
  it("connects at start (a failing server is a warning above the prompt), lists them with /mcp, asks before a call, saves \"always\" for the next process, and leaves nothing behind after Ctrl-D", async () => {
    const { name, model, dir, workspace, env } = await open({ dead: fixtureEntry(`${uniqueServerName()}-dead`, {}, "--never-start") });
    const term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› /);
    // Nothing typed yet: the servers connected in the background; the prompt line is erased, the warning takes it, and the prompt is drawn again below.
    await term.waitFor(/\nJarvis› warning: MCP server "dead" left out: [^\n]*refusing to start[^\n]*\nJarvis› $/);
    expect(term.raw()).toContain('\r\x1b[Kwarning: MCP server "dead" left out: ');

    let mark = term.output().length;
    term.type("/help\r");
    await term.waitFor(/ {2}\/mcp +the MCP servers of mcp\.json, their state and tools\n/, { from: mark });

    mark = term.output().length;
    term.type("/mcp\r");
    await term.waitFor(new RegExp(`MCP servers of ${join(workspace, "mcp.json")}:\\n  dead {${name.length - 4}}  stdio  failed: [^\\n]*\\n  ${name}  stdio  connected  10 tools\\n    mcp__${name}__add\\n`), { from: mark });

    mark = term.output().length;
    term.type("add please\r");
    await term.waitFor(new RegExp(`mcp__${name}__add needs approval: [^\\n]*\\n  \\[a\\]lways adds the tool name "mcp__${name}__add" to "allowed" in ${join(workspace, "exec-approvals.json")}; \\[d\\]eny always adds it to "denied"\\n`), { from: mark });
    await term.waitFor(literal(`Allow mcp__${name}__add {"a":1,"b":2}? [y]es once / [a]lways / [n]o / [d]eny always `), { from: mark });
    term.type("a");
    await term.waitFor(/\[d\]eny always always\n[\s\S]*got: 3\n[\s\S]*Jarvis› /, { from: mark });
    const approvals = JSON.parse(await readFile(join(workspace, "exec-approvals.json"), "utf8")) as { allowed: string[] };
    expect(approvals.allowed).toEqual([`mcp__${name}__add`]);

    mark = term.output().length;
    term.type("spawn\r");
    await term.waitFor(literal(`Allow mcp__${name}__spawn_child {}? [y]es once`), { from: mark });
    term.type("y");
    const child = await numberOnScreen(term, /got: (\d+)\n[\s\S]*Jarvis› /, mark);
    const server = await waitForFixture(name);
    expect(isAlive(child)).toBe(true);

    term.type("\x04");
    expect(await term.exited).toBe(0);
    expect(await waitForGroupsGone([server.pgid])).toEqual([]);
    expect(isAlive(child)).toBe(false);

    // "always" holds in the next process, which has nobody to ask.
    const run = await runCli(["run", "--workspace", workspace, "add please"], { env, cwd: dir });
    expect(run.stdout).toBe("got: 3\n");
    checkRequests(model);
  });

  it("draws the prompt again with what was typed when a server's warning arrives at the prompt", async () => {
    const { dir, workspace, env } = await open({ hung: fixtureEntry(`${uniqueServerName()}-hung`, { connectTimeoutMs: 1_000 }, "--hang") });
    const term = startTerminal(["--workspace", workspace], { env, cwd: dir });
    await term.waitFor(/Jarvis› $/);
    term.type("hel");
    await term.waitFor(/Jarvis› hel$/);
    await term.waitFor(/\nJarvis› helwarning: MCP server "hung" left out: \S+ \S+ --name \S+ --hang: did not connect within 1 s\nJarvis› hel$/);
    term.type("lo\r");
    await term.waitFor(/I heard: hello\n/);
  });

  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`leaves no server or server child behind when the REPL gets ${signal}`, async () => {
      const { name, dir, workspace, env } = await open();
      const term = startTerminal(["--workspace", workspace], { env, cwd: dir });
      await term.waitFor(/Jarvis› /);
      term.type("spawn\r");
      await term.waitFor(literal(`Allow mcp__${name}__spawn_child {}? [y]es once`));
      term.type("y");
      const child = await numberOnScreen(term, /got: (\d+)\n[\s\S]*Jarvis› /);
      const server = await waitForFixture(name);
      // The server's parent is miniclaw itself.
      process.kill(server.ppid, signal);
      const code = await term.exited;
      if (signal === "SIGTERM") expect(code).toBe(143);
      expect(await waitForGroupsGone([server.pgid])).toEqual([]);
      expect(isAlive(child)).toBe(false);
    });
  }

  it("in line mode, stops its servers and exits 130 on SIGINT", async () => {
    const { name, dir, workspace, env } = await open();
    const cli = spawn(process.execPath, [BIN, "--workspace", workspace, "--permission-mode", "bypassPermissions"], { env, cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    cli.stdout.on("data", (data: Buffer) => (stdout += data.toString()));
    const exited = new Promise<number | null>((resolve) => cli.on("close", (code) => resolve(code)));
    cli.stdin.write("spawn\n");
    await expect.poll(() => stdout, { timeout: 10_000 }).toMatch(/^got: \d+\n$/);
    const child = Number(/\d+/.exec(stdout)?.[0]);
    const server = await waitForFixture(name);
    cli.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(await waitForGroupsGone([server.pgid])).toEqual([]);
    expect(isAlive(child)).toBe(false);
  });
});
