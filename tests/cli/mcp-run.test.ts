import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel, type RecordedRequest, type Rule } from "../../src/testing/index.js";
import { BIN, cleanEnv, runCli, runMain } from "../helpers/cli.js";
import { isAlive, waitForGroupsGone } from "../helpers/mcp.js";
import { fixtureEntry, fixtureProcesses, mcpWorkspace, uniqueServerName, waitForFixture } from "./mcp-workspace.js";

/** The tool_result blocks of the request's last message, as text and error flag. */
function resultsOf(req: RecordedRequest | undefined): Array<{ text: string; isError: boolean }> {
  const last = req?.body.messages?.at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content.flatMap((b) => {
    if (b.type !== "tool_result") return [];
    const text = typeof b.content === "string" ? b.content : (b.content ?? []).map((p) => ("text" in p ? p.text : "")).join("");
    return [{ text, isError: b.is_error === true }];
  });
}

/** The model calls each of `calls` in turn (one per response), then says what the last result was. */
function calling(...calls: Array<{ name: string; input: Record<string, unknown> }>): Rule[] {
  return [
    ...calls.slice(1).map((call, i): Rule => ({ match: (req) => resultsOf(req).length > 0 && countResults(req) === i + 1, reply: { toolUses: [call] } })),
    { match: (req) => resultsOf(req).length > 0, reply: "got: {{tool_result}}" },
    { reply: { toolUses: [calls[0]!] } },
  ];
}

function countResults(req: RecordedRequest): number {
  return (req.body.messages ?? []).filter((m) => typeof m.content !== "string" && m.content.some((b) => b.type === "tool_result")).length;
}

/** A scripted model (checked and closed after the test), a workspace whose mcp.json has the fixture as `name`, and the env pointing at both. */
async function setup(ctx: TestContext, rules: (name: string) => Rule[], entry: Record<string, unknown> = {}) {
  const name = uniqueServerName();
  const model = await startScriptedModel(rules(name));
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const { dir, workspace } = await mcpWorkspace({ [name]: fixtureEntry(name, entry) });
  return { name, model, dir, workspace, env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) };
}

async function writeApprovals(workspace: string, approvals: { allowed: string[]; denied: string[] }): Promise<void> {
  await mkdir(workspace, { recursive: true });
  await writeFile(join(workspace, "exec-approvals.json"), JSON.stringify(approvals));
}

describe.concurrent("miniclaw run with the MCP servers of mcp.json", () => {
  it("calls an MCP tool with --permission-mode bypassPermissions, and stops the server before it exits", async (ctx) => {
    const { name, model, dir, workspace, env } = await setup(ctx, (name) => calling({ name: `mcp__${name}__add`, input: { a: 2, b: 3 } }));
    const run = await runMain(["run", "--workspace", workspace, "--permission-mode", "bypassPermissions", "add them"], { env, cwd: dir });
    ctx.expect(run.stderr).toContain(`→ mcp__${name}__add: {"a":2,"b":3}`);
    ctx.expect(run.stdout).toBe("got: 5\n");
    ctx.expect(run.code).toBe(0);
    ctx.expect(resultsOf(model.requests[1])).toEqual([{ text: "5", isError: false }]);
    ctx.expect(fixtureProcesses(name)).toEqual([]);
  });

  it("refuses an MCP tool that needs approval, and the model is told why", async (ctx) => {
    const { name, model, dir, workspace, env } = await setup(ctx, (name) => calling({ name: `mcp__${name}__add`, input: { a: 2, b: 3 } }));
    const run = await runMain(["run", "--workspace", workspace, "add them"], { env, cwd: dir });
    ctx.expect(run.code).toBe(0);
    ctx.expect(resultsOf(model.requests[1])).toEqual([
      {
        text: `Error: Not run: mcp__${name}__add needs the user's approval, and nobody is here to give it in this non-interactive run. Do not retry it. Finish without it and say in your reply which call you wanted to make and why, so the user can approve it.`,
        isError: true,
      },
    ]);
    ctx.expect(run.stdout).toMatch(/^got: Error: Not run: /);
  });

  it("runs a tool unasked when mcp.json declares it read-only, or exec-approvals.json allows it by glob; a denied name wins over both and over bypassPermissions", async (ctx) => {
    const { name, model, dir, workspace, env } = await setup(ctx, (name) => calling({ name: `mcp__${name}__echo`, input: { text: "hi" } }, { name: `mcp__${name}__add`, input: { a: 1, b: 1 } }), { readOnly: ["echo"] });
    await writeApprovals(workspace, { allowed: [`mcp__${name}__*`], denied: [] });
    const allowed = await runMain(["run", "--workspace", workspace, "echo then add"], { env, cwd: dir });
    ctx.expect(allowed.stdout).toBe("got: 2\n");
    ctx.expect(resultsOf(model.requests[1])).toEqual([{ text: "hi", isError: false }]);

    await writeApprovals(workspace, { allowed: [`mcp__${name}__*`], denied: [`mcp__${name}__add`] });
    const denied = await runMain(["run", "--workspace", workspace, "--permission-mode", "bypassPermissions", "echo then add"], { env, cwd: dir });
    ctx.expect(denied.code).toBe(0);
    ctx.expect(resultsOf(model.requests.at(-1))).toEqual([
      { text: `Error: The user denied the tool mcp__${name}__add: it is on the denied list of exec-approvals.json. Do not call it again; choose another approach or ask the user.`, isError: true },
    ]);
  });

  it("leaves no server or server child behind once the binary exits", async (ctx) => {
    const { name, dir, workspace, env } = await setup(ctx, (name) => calling({ name: `mcp__${name}__spawn_child`, input: {} }));
    const run = await runCli(["run", "--workspace", workspace, "--permission-mode", "bypassPermissions", "spawn"], { env, cwd: dir });
    ctx.expect(run.code).toBe(0);
    const child = Number(/^got: (\d+)$/.exec(run.stdout.trim())?.[1]);
    ctx.expect(child).toBeGreaterThan(0);
    ctx.expect(fixtureProcesses(name)).toEqual([]);
    ctx.expect(isAlive(child)).toBe(false);
  });

  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`leaves no server or server child behind when the binary gets ${signal} in the middle of a call`, async (ctx) => {
      const { name, dir, workspace, env } = await setup(ctx, (name) => calling({ name: `mcp__${name}__spawn_child`, input: {} }, { name: `mcp__${name}__slow`, input: { ms: 60_000 } }));
      const cli = spawn(process.execPath, [BIN, "run", "--workspace", workspace, "--permission-mode", "bypassPermissions", "spawn, then wait"], { env, cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
      ctx.onTestFinished(() => void cli.kill("SIGKILL"));
      let stderr = "";
      cli.stderr.on("data", (data: Buffer) => (stderr += data.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => cli.on("close", (code, sig) => resolve({ code, signal: sig })));
      const server = await waitForFixture(name);
      await ctx.expect.poll(() => stderr, { timeout: 10_000 }).toContain(`→ mcp__${name}__slow`);
      const child = Number(/✓ (\d+)/.exec(stderr)?.[1]);
      ctx.expect(isAlive(child)).toBe(true);

      cli.kill(signal);
      const end = await exited;
      ctx.expect(end).toEqual(signal === "SIGTERM" ? { code: 143, signal: null } : { code: null, signal: "SIGKILL" });
      if (signal === "SIGTERM") ctx.expect(stderr.trimEnd().split("\n").at(-1)).toBe("terminated");
      ctx.expect(await waitForGroupsGone([server.pgid])).toEqual([]);
      ctx.expect(isAlive(child)).toBe(false);
    });
  }
});
