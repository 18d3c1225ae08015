// miniclaw steer KEY TEXT: a message for a session's running turn (in another process) or its next one, delivered once.
import { spawn } from "node:child_process";
import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import { startScriptedModel, type RecordedRequest, type Rule } from "../../src/testing/index.js";
import { BIN, cleanEnv, runCli, runMain } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";

/** A workspace from the templates and a scripted model, checked (no request rejected) and closed after the test. */
async function setup(ctx: TestContext, rules: Rule[]) {
  const model = await startScriptedModel(rules);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-steer-");
  const workspace = join(dir, "ws");
  await ensureWorkspace(workspace);
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
  return { dir, workspace, env, model };
}

/** Every text block of a request's user messages, in order. */
const userTexts = (req: RecordedRequest | undefined): string[] =>
  (req?.body.messages ?? []).flatMap((m) => (m.role !== "user" ? [] : typeof m.content === "string" ? [m.content] : m.content.flatMap((b) => (b.type === "text" ? [b.text] : []))));

const STEERED = /The user added: (.*)/;
const steersOf = (req: RecordedRequest | undefined): string[] => userTexts(req).flatMap((t) => STEERED.exec(t)?.[1] ?? []);

describe.concurrent("miniclaw steer", () => {
  it("refuses a session that does not exist with one line and exit 1, so a mistyped key holds nothing (the binary)", async (ctx) => {
    const t = await setup(ctx, []);
    const steer = await runCli(["steer", "agent:main:mian", "in", "metric", "units", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
    ctx.expect(steer.code).toBe(1);
    ctx.expect(steer.stdout).toBe("");
    ctx.expect(steer.stderr).toBe('no session "agent:main:mian" (miniclaw sessions lists them; miniclaw sessions new KEY makes an empty one to steer)\n');
  });

  it("queues a message that the session's next turn takes with its own, once, and prints the id on stderr", async (ctx) => {
    const t = await setup(ctx, [{ reply: "ok" }]);
    ctx.expect((await runMain(["sessions", "new", "agent:main:main", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir })).code).toBe(0);
    const steer = await runCli(["steer", "agent:main:main", "in", "metric", "units", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
    ctx.expect(steer.code).toBe(0);
    ctx.expect(steer.stdout).toBe("");
    ctx.expect(steer.stderr).toMatch(/^steer [0-9a-f-]{36} queued for agent:main:main \(its running turn takes it before its next request, or its next turn does\)\n$/);
    const first = await runMain(["run", "--workspace", t.workspace, "--session", "agent:main:main", "how far is the moon?"], { env: t.env, cwd: t.dir });
    ctx.expect(first.code).toBe(0);
    ctx.expect(steersOf(t.model.requests[0])).toEqual(["in metric units"]);
    await runMain(["run", "--workspace", t.workspace, "--continue", "and the sun?"], { env: t.env, cwd: t.dir });
    ctx.expect(steersOf(t.model.requests[1])).toEqual(["in metric units"]);
    ctx.expect(userTexts(t.model.requests[1]).filter((text) => STEERED.test(text))).toHaveLength(1);
    const again = await runMain(["steer", "agent:main:main", "shorter", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
    ctx.expect(again.stderr).toMatch(/queued for agent:main:main \(its running turn takes it before its next request, or its next turn does\)/);
  });

  it("reaches a turn running in another process: the message joins the request after the tool that was running", async (ctx) => {
    const t = await setup(ctx, [
      { match: { toolResult: { name: "run_command" } }, reply: "done" },
      { reply: { toolUses: [{ name: "run_command", input: { command: "touch started && sleep 2" } }] } },
    ]);
    const key = "agent:main:long";
    const run = spawn(process.execPath, [BIN, "run", "--workspace", t.workspace, "--session", key, "--permission-mode", "bypassPermissions", "work a while"], { env: t.env, cwd: t.dir });
    let stdout = "";
    run.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => run.on("close", resolve));
    ctx.onTestFinished(() => void run.kill("SIGKILL"));
    while (!(await access(join(t.dir, "started")).then(() => true, () => false))) await new Promise((r) => setTimeout(r, 20));
    const steer = await runCli(["steer", key, "also check the logs", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
    ctx.expect(steer.code).toBe(0);
    ctx.expect(await exited).toBe(0);
    ctx.expect(t.model.requests).toHaveLength(2);
    ctx.expect(steersOf(t.model.requests[1])).toEqual(["also check the logs"]);
    ctx.expect(stdout).toBe("done\n");
  }, 20_000);

  it("reaches a cron job's session, even before its first run: the job's next run takes it", async (ctx) => {
    const t = await setup(ctx, [{ reply: "digest written" }]);
    await writeFile(join(t.workspace, "cron.json"), JSON.stringify({ jobs: [{ name: "digest", schedule: "0 8 * * *", prompt: "write the digest" }] }));
    ctx.expect((await runMain(["steer", "cron:digest", "skip the weather", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir })).code).toBe(0);
    const run = await runMain(["cron", "run", "digest", "--workspace", t.workspace], { env: t.env, cwd: t.dir });
    ctx.expect(run.code).toBe(0);
    ctx.expect(steersOf(t.model.requests[0])).toEqual(["skip the weather"]);
  });

  it("refuses an empty message or a missing workspace with one line, and explains itself with --help", async (ctx) => {
    const dir = await tempDir("miniclaw-steer-");
    const empty = await runMain(["steer", "agent:main:main", " ", "--workspace", dir], { env: cleanEnv(), cwd: dir });
    ctx.expect(empty.code).toBe(1);
    ctx.expect(empty.stderr).toMatch(/^usage: miniclaw steer KEY TEXT, e\.g\. .*\n$/);
    const missing = await runMain(["steer", "agent:main:main", "hi", "--workspace", join(dir, "nope")], { env: cleanEnv(), cwd: dir });
    ctx.expect(missing.code).toBe(1);
    ctx.expect(missing.stderr).toBe(`no workspace at ${join(dir, "nope")} (give --workspace DIR, or set MINICLAW_WORKSPACE)\n`);
    const help = await runMain(["steer", "--help"], { env: cleanEnv(), cwd: dir });
    ctx.expect(help.code).toBe(0);
    ctx.expect(help.stdout).toMatch(/^Usage: miniclaw steer KEY TEXT \[--workspace DIR\]\n\nAdds TEXT to the inbox of session KEY/);
    const general = await runMain(["--help"], { env: cleanEnv(), cwd: dir });
    ctx.expect(general.stdout).toMatch(/^ {2}steer KEY TEXT +add a message to session KEY's running turn, or its next one$/m);
  });
});
