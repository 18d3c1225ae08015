import { mkdir, mkdtemp, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runCli } from "../helpers/cli.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  expect(model?.rejected ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

async function setup(rules: Parameters<typeof startScriptedModel>[0]) {
  model = await startScriptedModel(rules);
  const dir = await mkdtemp(join(tmpdir(), "miniclaw-cli-"));
  return { dir, workspace: join(dir, "ws"), env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) };
}

describe("miniclaw run", () => {
  it("prints the final text on stdout and exits 0", async () => {
    const { dir, workspace, env } = await setup([{ match: "hello", reply: "Hello from the scripted model" }]);
    const run = await runCli(["run", "--workspace", workspace, "hello"], { env, cwd: dir });
    expect(run.stdout).toBe("Hello from the scripted model\n");
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/Created a new workspace/);
  });

  it("prints tool activity on stderr, not stdout", async () => {
    const { dir, workspace, env } = await setup([
      { match: "search", reply: { toolUses: [{ name: "memory_search", input: { query: "tea" } }] } },
      { reply: "found: {{tool_result}}" },
    ]);
    const run = await runCli(["run", "--workspace", workspace, "search my notes"], { env, cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^found: No memory notes matched/);
    expect(run.stderr).toMatch(/→ memory_search: tea/);
  });

  it("with no credentials prints the guidance paragraph and exits 1, without a stack trace", async () => {
    const dir = await mkdtemp(join(tmpdir(), "miniclaw-cli-"));
    const run = await runCli(["run", "hi"], { env: cleanEnv(), cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(run.stderr).toMatch(/npm run demo/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("exits 1 with one line when the API keeps failing", async () => {
    const { dir, workspace, env } = await setup([{ fault: { status: 500, retryAfterMs: 1 } }]);
    const run = await runCli(["run", "--workspace", workspace, "hi"], { env, cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/error: API error 500/);
  });

  it("rejects an unknown option with one line and exit 1", async () => {
    const run = await runCli(["run", "--frobnicate", "hi"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/frobnicate/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("routes /research to the researcher agent, whose SOUL is the system prompt", async () => {
    const { dir, workspace, env } = await setup([{ reply: "research done" }]);
    const run = await runCli(["run", "--workspace", workspace, "/research what changed in Rust async?"], { env, cwd: dir });
    expect(run.code).toBe(0);
    const body = model!.requests[0]!.body;
    expect(JSON.stringify(body.system)).toMatch(/Scout/);
    expect(JSON.stringify(body.messages)).toMatch(/what changed in Rust async\?/);
    expect(JSON.stringify(body.messages)).not.toMatch(/\/research/);
  });

  it("never runs an unapproved unsafe command: `ls; rm -rf victim` is refused and the model is told why", async () => {
    const { dir, workspace, env } = await setup([
      { match: "clean", reply: { toolUses: [{ name: "run_command", input: { command: "ls; rm -rf victim" } }] } },
      { match: { toolResult: { name: "run_command" } }, reply: "I could not: {{tool_result}}" },
    ]);
    await mkdir(join(dir, "victim"));
    const run = await runCli(["run", "--workspace", workspace, "clean up"], { env, cwd: dir });
    expect(run.code).toBe(0);
    expect((await stat(join(dir, "victim"))).isDirectory()).toBe(true);
    const sent = model!.requests[1]!.body.messages!.at(-1)!.content as Array<{ type: string; is_error?: boolean; content: unknown }>;
    expect(sent[0]).toMatchObject({ type: "tool_result", is_error: true });
    expect(JSON.stringify(sent[0]!.content)).toMatch(/approval/i);
    expect(run.stdout).toMatch(/^I could not:/);
  });
});
