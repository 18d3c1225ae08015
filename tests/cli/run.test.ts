import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { startScriptedModel, type Rule } from "../../src/testing/index.js";
import { cleanEnv, runCli, runMain } from "../helpers/cli.js";
import { closedPort } from "../helpers/ports.js";
import { tempDir } from "../helpers/temp-dir.js";

/** A scripted model (checked and closed after the test) and a fresh folder with a workspace path in it. */
async function setup(ctx: TestContext, rules: Rule[]) {
  const model = await startScriptedModel(rules);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-cli-");
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
    const dir = await tempDir("miniclaw-cli-");
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
    // The SDK retried on its own: each retry is one line naming the status and the URL.
    ctx.expect(run.stderr).toContain(`retrying (1): API error 500 from POST ${env["ANTHROPIC_BASE_URL"]}/v1/messages`);
  });

  it("names the URL it tried when the connection fails, on the one error line", async (ctx) => {
    const dir = await tempDir("miniclaw-cli-");
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const env = cleanEnv({ ANTHROPIC_BASE_URL: closed, ANTHROPIC_API_KEY: "x" });
    const run = await runMain(["run", "--workspace", join(dir, "ws"), "hi"], { env, cwd: dir });
    ctx.expect(run.code).toBe(1);
    ctx.expect(run.stderr.trimEnd().split("\n").at(-1)).toMatch(/^miniclaw: error: Connection error \(http:\/\/127\.0\.0\.1:\d+\/v1\/messages\).*ECONNREFUSED/);
    ctx.expect(run.stderr.trimEnd().split("\n").at(-1)).toContain(`(${closed}/v1/messages)`);
    ctx.expect(run.stderr).toContain(`retrying (1): connection failed to ${closed}`);
  }, 30_000);

  it("says in one line, not as an unexpected error, when the sessions folder is a link to itself", async (ctx) => {
    const { dir, workspace, env } = await setup(ctx, [{ reply: "hello" }]);
    ctx.expect((await runMain(["run", "--workspace", workspace, "hi"], { env, cwd: dir })).code).toBe(0);
    await rm(join(workspace, "sessions"), { recursive: true });
    await symlink("sessions", join(workspace, "sessions"));
    for (const args of [["run", "--workspace", workspace, "hi"], ["run", "--workspace", workspace, "--session", "agent:main:x", "hi"]]) {
      const run = await runMain(args, { env, cwd: dir });
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stderr).not.toMatch(/unexpected error/);
      ctx.expect(run.stderr).toMatch(/sessions.*ELOOP|ELOOP.*sessions/);
    }
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

/** The session key a run printed on stderr. */
function printedKey(stderr: string): string {
  return /^session: (\S+) /m.exec(stderr)?.[1] ?? "(no session line)";
}

/** The texts of the user messages of a recorded request (the time block a turn adds is left out). */
function userTexts(body: { messages?: Array<{ role: string; content: unknown }> }): string[] {
  return (body.messages ?? [])
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : ((m.content as Array<{ type: string; text?: string }>).find((b) => b.type === "text")?.text ?? "")));
}

describe.concurrent("miniclaw run: one-shot sessions", () => {
  it("starts a new session each time, prints its key on stderr, and names the file after it", async (ctx) => {
    const { model, dir, workspace, env } = await setup(ctx, [{ reply: "answer to {{user_text}}" }]);
    const first = await runMain(["run", "--workspace", workspace, "first question"], { env, cwd: dir });
    const second = await runMain(["run", "--workspace", workspace, "second question"], { env, cwd: dir });
    ctx.expect([first.code, second.code]).toEqual([0, 0]);
    ctx.expect(second.stdout).toMatch(/^answer to second question\n/);
    const keys = [printedKey(first.stderr), printedKey(second.stderr)];
    for (const key of keys) ctx.expect(key).toMatch(/^agent:main:run-\d{8}-\d{6}-[0-9a-f]{4}$/);
    ctx.expect(keys[0]).not.toBe(keys[1]);
    // The second request carries only its own question: no context from the first run.
    ctx.expect(userTexts(model.requests[1]!.body)).toEqual(["second question"]);
    const files = (await readdir(join(workspace, "sessions"))).filter((name) => name.endsWith(".jsonl")).sort();
    ctx.expect(files).toHaveLength(2);
    for (const file of files) ctx.expect(file).toMatch(/^agent[^A-Z]*run-\d{8}-\d{6}-[0-9a-f]{4}\.jsonl$/);
  });

  it("--continue goes on in the last run's session, and -c does too", async (ctx) => {
    const { model, dir, workspace, env } = await setup(ctx, [{ reply: "answer to {{user_text}}" }]);
    const first = await runMain(["run", "--workspace", workspace, "my name is Ada"], { env, cwd: dir });
    const second = await runMain(["run", "--workspace", workspace, "--continue", "what is my name?"], { env, cwd: dir });
    const third = await runMain(["run", "-c", "--workspace", workspace, "and again?"], { env, cwd: dir });
    ctx.expect([first.code, second.code, third.code]).toEqual([0, 0, 0]);
    ctx.expect(printedKey(second.stderr)).toBe(printedKey(first.stderr));
    ctx.expect(printedKey(third.stderr)).toBe(printedKey(first.stderr));
    ctx.expect(userTexts(model.requests[2]!.body)).toEqual(["my name is Ada", "what is my name?", "and again?"]);
    ctx.expect((await readFile(join(workspace, "sessions", ".last-run"), "utf8")).trim()).toBe(printedKey(first.stderr));
  });

  it("--session KEY runs in that session, and --continue then goes on there", async (ctx) => {
    const { model, dir, workspace, env } = await setup(ctx, [{ reply: "ok" }]);
    const named = await runMain(["run", "--workspace", workspace, "--session", "agent:main:notes", "one"], { env, cwd: dir });
    const again = await runMain(["run", "--workspace", workspace, "--continue", "two"], { env, cwd: dir });
    ctx.expect([named.code, again.code]).toEqual([0, 0]);
    ctx.expect(printedKey(named.stderr)).toBe("agent:main:notes");
    ctx.expect(printedKey(again.stderr)).toBe("agent:main:notes");
    ctx.expect(userTexts(model.requests[1]!.body)).toEqual(["one", "two"]);
  });

  it("routes /research to a new researcher session, never the REPL's agent:researcher:main", async (ctx) => {
    const { dir, workspace, env } = await setup(ctx, [{ reply: "research done" }]);
    const run = await runMain(["run", "--workspace", workspace, "/research what changed?"], { env, cwd: dir });
    ctx.expect(run.code).toBe(0);
    ctx.expect(printedKey(run.stderr)).toMatch(/^agent:researcher:run-\d{8}-\d{6}-[0-9a-f]{4}$/);
    ctx.expect(await readdir(join(workspace, "sessions"))).not.toContain("agent%3Aresearcher%3Amain.jsonl");
  });

  it("--continue with no earlier run, or with --session, exits 1 with one line and sends nothing", async (ctx) => {
    const { model, dir, workspace, env } = await setup(ctx, [{ reply: "ok" }]);
    const none = await runMain(["run", "--workspace", workspace, "--continue", "hi"], { env, cwd: dir });
    ctx.expect(none.code).toBe(1);
    ctx.expect(none.stderr).toMatch(/no earlier miniclaw run in .* to continue: run without --continue/);
    const both = await runMain(["run", "--workspace", workspace, "--continue", "--session", "agent:main:x", "hi"], { env, cwd: dir });
    ctx.expect(both.code).toBe(1);
    ctx.expect(both.stderr).toBe("give --session KEY or --continue, not both\n");
    const repl = await runMain(["sessions", "--continue"], { env, cwd: dir });
    ctx.expect(repl.stderr).toMatch(/--continue goes with miniclaw run/);
    ctx.expect(model.requests).toHaveLength(0);
  });
});

describe.concurrent("miniclaw run: a turn that ends in an error", () => {
  it("exits 1 with the error on one line of stderr, even when the API's message has several (the binary)", async (ctx) => {
    const { dir, workspace, env } = await setup(ctx, [{ fault: { status: 400, errorType: "invalid_request_error", message: "tools.0.name: the name\nmust be shorter" } }]);
    const run = await runCli(["run", "--workspace", workspace, "hi"], { env, cwd: dir });
    ctx.expect(run.code).toBe(1);
    ctx.expect(run.stdout).toBe("");
    const lines = run.stderr.trimEnd().split("\n");
    ctx.expect(lines.at(-1)).toMatch(/^miniclaw: error: .*400.*tools\.0\.name: the name must be shorter/);
    ctx.expect(lines.filter((line) => /400/.test(line))).toHaveLength(1);
  });

  it("exits 1 with one line when the model's context window is exceeded", async (ctx) => {
    const { dir, workspace, env } = await setup(ctx, [{ reply: { text: "partial", stopReason: "model_context_window_exceeded" } }]);
    const run = await runMain(["run", "--workspace", workspace, "hi"], { env, cwd: dir });
    ctx.expect(run.code).toBe(1);
    ctx.expect(run.stderr.trimEnd().split("\n").at(-1)).toMatch(/^miniclaw: model_context_window_exceeded: /);
  });
});

describe("miniclaw run: many parallel tool calls", () => {
  it("twelve parallel read-only run_command calls emit no Node warning (in process, and the binary's stderr)", async (ctx) => {
    const calls = Array.from({ length: 12 }, (_, i) => ({ name: "run_command", input: { command: `echo call-${i}` } }));
    const rules: Rule[] = [{ match: "twelve", reply: { toolUses: calls } }, { match: { toolResult: { name: "run_command" } }, reply: "all twelve done" }];
    const { model, dir, workspace, env } = await setup(ctx, rules);
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const run = await runMain(["run", "--workspace", workspace, "twelve calls"], { env, cwd: dir });
      ctx.expect(run.code).toBe(0);
      ctx.expect(run.stdout).toBe("all twelve done\n");
      // Warnings are emitted on a later tick: give them one.
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off("warning", onWarning);
    }
    ctx.expect(warnings).toEqual([]);
    const results = model.requests[1]!.body.messages!.at(-1)!.content as Array<{ type: string; is_error?: boolean }>;
    ctx.expect(results.map((block) => [block.type, block.is_error ?? false])).toEqual(calls.map(() => ["tool_result", false]));
    // The binary: its real stderr carries no warning, and its stdout holds the reply alone (as `npm start --silent` below).
    const binary = await runCli(["run", "--workspace", workspace, "twelve calls"], { env, cwd: dir });
    ctx.expect(binary.code).toBe(0);
    ctx.expect(binary.stdout).toBe("all twelve done\n");
    ctx.expect(binary.stderr).toMatch(/^session: agent:main:run-/m);
    ctx.expect(binary.stderr).not.toMatch(/Warning/);
  });
});

describe.concurrent("miniclaw run from a script: stdout holds the reply alone", () => {
  const ROOT = join(import.meta.dirname, "../..");

  /** Runs `command args` from the repository's folder, as a person scripting it would; resolves with its output. */
  function spawnIn(cwd: string, command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  }

  // `node bin/miniclaw.js run` printing the reply alone is shown by the binary run of the twelve parallel calls above.
  it("npm start --silent -- run", async (ctx) => {
    const { workspace, env } = await setup(ctx, [{ match: "hello", reply: "Hello from the scripted model" }]);
    const run = await spawnIn(ROOT, "npm", ["start", "--silent", "--", "run", "--workspace", workspace, "hello"], env);
    ctx.expect(run.code).toBe(0);
    ctx.expect(run.stdout).toBe("Hello from the scripted model\n");
    ctx.expect(run.stderr).toMatch(/^session: agent:main:run-/m);
  });
});
