// The MCP servers of the assistant the CLI is built on (mcp.json read once, one hub for every turn, stopped by close), and of cron.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { connectMcpServers } from "../../src/mcp/index.js";
import { parseCliArgs } from "../../src/cli/args.js";
import { openCliAssistant } from "../../src/cli/assistant-setup.js";
import { openAssistant } from "../../src/assistant/assistant.js";
import { validateRequest, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import { BIN, cleanEnv, runMain, testIo } from "../helpers/cli.js";
import { waitForGroupsGone } from "../helpers/mcp.js";
import { clientFor } from "../helpers/scripted.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { fixtureEntry, fixtureProcesses, mcpWorkspace, uniqueServerName, waitForFixture } from "./mcp-workspace.js";

const scripted = scriptedModelPerTest();

/** "add please" calls `server`'s add with 1 and 2; a tool result is answered with "got: <result>". */
function adding(server: string): Rule[] {
  return [
    { match: { toolResult: {} }, reply: "got: {{tool_result}}" },
    { reply: { toolUses: [{ name: `mcp__${server}__add`, input: { a: 1, b: 2 } }] } },
  ];
}

function toolNames(model: ScriptedModel): string[] {
  return ((model.requests[0]?.body.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name);
}

describe("the assistant's MCP servers", () => {
  it("reads mcp.json once: the servers start at the first turn, every turn shares them, and close() stops them", async () => {
    const name = uniqueServerName();
    const model = await scripted(adding(name));
    const { dir, workspace } = await mcpWorkspace({ [name]: fixtureEntry(name) });
    const io = testIo(dir, cleanEnv());
    const opened = await openCliAssistant(parseCliArgs(["run", "x"]), io, { workspace, cwd: dir, env: io.env, client: clientFor(model), permissionMode: "bypassPermissions" });
    expect(opened.mcp?.status().map((s) => [s.name, s.state])).toEqual([[name, "idle"]]);
    expect(fixtureProcesses(name)).toEqual([]);

    expect((await opened.assistant.send("add please")).text).toBe("got: 3");
    const [first] = fixtureProcesses(name);
    expect((await opened.assistant.send("add please again")).text).toBe("got: 3");
    expect(fixtureProcesses(name)).toEqual([first]);

    await opened.close();
    expect(fixtureProcesses(name)).toEqual([]);
    for (const request of model.requests) expect(validateRequest(request.body)).toBeNull();
  });

  it("takes a library's hub as a tool source, reads no mcp.json itself, and leaves the hub running at close()", async () => {
    const [fromFile, given] = [uniqueServerName(), uniqueServerName()];
    const model = await scripted(adding(given));
    const { dir, workspace } = await mcpWorkspace({ [fromFile]: fixtureEntry(fromFile) });
    const hub = await connectMcpServers({ [given]: fixtureEntry(given) });
    try {
      const assistant = await openAssistant({ workspace, cwd: dir, env: cleanEnv(), client: clientFor(model), permissionMode: "bypassPermissions", toolSources: [hub] });
      expect((await assistant.send("add please")).text).toBe("got: 3");
      expect(toolNames(model).filter((tool) => tool.startsWith("mcp__"))).toContain(`mcp__${given}__add`);
      expect(toolNames(model).filter((tool) => tool.startsWith(`mcp__${fromFile}`))).toEqual([]);
      await assistant.close();
      expect(hub.status().map((s) => s.state)).toEqual(["connected"]);
      expect(fixtureProcesses(fromFile)).toEqual([]);
    } finally {
      await hub.close();
    }
    expect(fixtureProcesses(given)).toEqual([]);
  });

  it("refuses a bad mcp.json with the ConfigError naming the file, the server and the field", async () => {
    const { dir, workspace } = await mcpWorkspace({ broken: { command: "x", timeoutMs: "soon" } });
    const io = testIo(dir, cleanEnv());
    const opening = openCliAssistant(parseCliArgs(["run", "x"]), io, { workspace, cwd: dir, env: io.env, client: clientFor(await scripted([{ reply: "unused" }])) });
    await expect(opening).rejects.toThrow(ConfigError);
    await expect(opening).rejects.toThrow(new RegExp(`^${join(workspace, "mcp.json")}: server "broken": field "timeoutMs" `));
  });
});

describe("cron's MCP servers", () => {
  it("cron run JOB calls an MCP tool that exec-approvals.json allows, and stops the server before it exits", async () => {
    const name = uniqueServerName();
    const model = await scripted(adding(name));
    const { dir, workspace } = await mcpWorkspace({ [name]: fixtureEntry(name) });
    await writeFile(join(workspace, "cron.json"), JSON.stringify({ jobs: [{ name: "adder", schedule: "0 * * * *", prompt: "add please", enabled: true }] }));
    await writeFile(join(workspace, "exec-approvals.json"), JSON.stringify({ allowed: [`mcp__${name}__add`], denied: [] }));
    const run = await runMain(["cron", "run", "adder", "--workspace", workspace], { env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }), cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/adder ok .*got: 3/);
    expect(fixtureProcesses(name)).toEqual([]);
  });

  it("cron run JOB stopped by SIGTERM in the middle of a call leaves no server behind", async () => {
    const name = uniqueServerName();
    const model = await scripted([{ reply: { toolUses: [{ name: `mcp__${name}__slow`, input: { ms: 60_000 } }] } }]);
    const { dir, workspace } = await mcpWorkspace({ [name]: fixtureEntry(name) });
    await writeFile(join(workspace, "cron.json"), JSON.stringify({ jobs: [{ name: "waiter", schedule: "0 * * * *", prompt: "wait", enabled: true }] }));
    await writeFile(join(workspace, "exec-approvals.json"), JSON.stringify({ allowed: [`mcp__${name}__slow`], denied: [] }));
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
    const cli = spawn(process.execPath, [BIN, "cron", "run", "waiter", "--workspace", workspace], { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    onTestFinished(() => void cli.kill("SIGKILL"));
    let stderr = "";
    cli.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => cli.on("close", (code, signal) => resolve({ code, signal })));
    const server = await waitForFixture(name);
    await expect.poll(() => stderr, { timeout: 10_000 }).toContain(`→ mcp__${name}__slow`);
    cli.kill("SIGTERM");
    // Ended by miniclaw itself (the run recorded as interrupted), not by the signal.
    expect(await exited).toEqual({ code: 1, signal: null });
    expect(await waitForGroupsGone([server.pgid])).toEqual([]);
  });
});
