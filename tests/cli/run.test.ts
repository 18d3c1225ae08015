import { mkdir, mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel, type Rule } from "../../src/testing/index.js";
import { cleanEnv, runCli, runMain } from "../helpers/cli.js";

/** A scripted model (checked and closed after the test) and a fresh folder with a workspace path in it. */
async function setup(ctx: TestContext, rules: Rule[]) {
  const model = await startScriptedModel(rules);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await mkdtemp(join(tmpdir(), "miniclaw-cli-"));
  return { model, dir, workspace: join(dir, "ws"), env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) };
}

// In this process through main(argv, io); the binary where the process is the point (its exit code, nothing else printed).
describe.concurrent("miniclaw run", () => {
  it("prints the final text on stdout and exits 0", async (ctx) => {
    const { dir, workspace, env } = await setup(ctx, [{ match: "hello", reply: "Hello from the scripted model" }]);
    const run = await runMain(["run", "--workspace", workspace, "hello"], { env, cwd: dir });
    ctx.expect(run.stdout).toBe("Hello from the scripted model\n");
    ctx.expect(run.code).toBe(0);
    ctx.expect(run.stderr).toMatch(/Created a new workspace/);
  });

  it("prints tool activity on stderr, not stdout", async (ctx) => {
    const { dir, workspace, env } = await setup(ctx, [
      { match: "search", reply: { toolUses: [{ name: "memory_search", input: { query: "tea" } }] } },
      { reply: "found: {{tool_result}}" },
    ]);
    const run = await runMain(["run", "--workspace", workspace, "search my notes"], { env, cwd: dir });
    ctx.expect(run.code).toBe(0);
    ctx.expect(run.stdout).toMatch(/^found: No memory notes matched/);
    ctx.expect(run.stderr).toMatch(/→ memory_search: tea/);
  });

  it("with no credentials prints the guidance paragraph and exits 1, without a stack trace (the binary)", async ({ expect }) => {
    const dir = await mkdtemp(join(tmpdir(), "miniclaw-cli-"));
    const run = await runCli(["run", "hi"], { env: cleanEnv(), cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(run.stderr).toMatch(/npm run demo/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("exits 1 with one line when the API keeps failing", async (ctx) => {
    const { dir, workspace, env } = await setup(ctx, [{ fault: { status: 500, retryAfterMs: 1 } }]);
    const run = await runMain(["run", "--workspace", workspace, "hi"], { env, cwd: dir });
    ctx.expect(run.code).toBe(1);
    ctx.expect(run.stdout).toBe("");
    ctx.expect(run.stderr).toMatch(/error: API error 500/);
  });

  it("rejects an unknown option with one line and exit 1", async ({ expect }) => {
    const run = await runMain(["run", "--frobnicate", "hi"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/frobnicate/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("routes /research to the researcher agent, whose SOUL is the system prompt", async (ctx) => {
    const { model, dir, workspace, env } = await setup(ctx, [{ reply: "research done" }]);
    const run = await runMain(["run", "--workspace", workspace, "/research what changed in Rust async?"], { env, cwd: dir });
    ctx.expect(run.code).toBe(0);
    const body = model.requests[0]!.body;
    ctx.expect(JSON.stringify(body.system)).toMatch(/Scout/);
    ctx.expect(JSON.stringify(body.messages)).toMatch(/what changed in Rust async\?/);
    ctx.expect(JSON.stringify(body.messages)).not.toMatch(/\/research/);
  });

  it("never runs an unapproved unsafe command: `ls; rm -rf victim` is refused and the model is told why", async (ctx) => {
    const { model, dir, workspace, env } = await setup(ctx, [
      { match: "clean", reply: { toolUses: [{ name: "run_command", input: { command: "ls; rm -rf victim" } }] } },
      { match: { toolResult: { name: "run_command" } }, reply: "I could not: {{tool_result}}" },
    ]);
    await mkdir(join(dir, "victim"));
    const run = await runMain(["run", "--workspace", workspace, "clean up"], { env, cwd: dir });
    ctx.expect(run.code).toBe(0);
    ctx.expect((await stat(join(dir, "victim"))).isDirectory()).toBe(true);
    const sent = model.requests[1]!.body.messages!.at(-1)!.content as Array<{ type: string; is_error?: boolean; content: unknown }>;
    ctx.expect(sent[0]).toMatchObject({ type: "tool_result", is_error: true });
    ctx.expect(JSON.stringify(sent[0]!.content)).toMatch(/approval/i);
    ctx.expect(run.stdout).toMatch(/^I could not:/);
  });
});
