import { spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import { startScriptedModel, type Rule, type ScriptedModel, type ScriptedModelOptions } from "../../src/testing/index.js";
import { BIN, cleanEnv, runMain, startMain } from "../helpers/cli.js";
import { until } from "../helpers/manual-clock.js";
import { tempDir } from "../helpers/temp-dir.js";

const LINE = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] /;
const JOBS = [
  { name: "morning", schedule: "30 7 * * *", prompt: "morning check" },
  { name: "pulse", schedule: "*/30 * * * *", heartbeat: true, enabled: false },
];

/** A workspace from the templates with these jobs (or this raw cron.json text), and a scripted model closed after the test. */
async function setup(ctx: TestContext, rules: Rule[], jobs: unknown = JOBS, checklist = "# Heartbeat\n- check the disk\n", options: ScriptedModelOptions = {}) {
  const model: ScriptedModel = await startScriptedModel(rules, options);
  ctx.onTestFinished(async () => {
    // A provider without server tools refuses what offers them; every other request must be valid.
    if (options.serverTools !== false) ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const dir = await tempDir("miniclaw-cron-cli-");
  const workspace = join(dir, "ws");
  await ensureWorkspace(workspace);
  await writeFile(join(workspace, "cron.json"), typeof jobs === "string" ? jobs : JSON.stringify({ jobs }));
  await writeFile(join(workspace, "HEARTBEAT.md"), checklist);
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
  const cli = (...args: string[]) => runMain(["cron", ...args, "--workspace", workspace], { env, cwd: dir });
  const runs = async () => (await readFile(join(workspace, "cron", "runs.jsonl"), "utf8")).trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  return { dir, workspace, env, cli, runs, model };
}

// All at once (they wait on sockets and child processes). In this process through main(argv, io), except the scheduler's run until SIGTERM: the binary, on node-schedule's timer.
describe.concurrent("the cron command", () => {
  describe.concurrent("miniclaw cron run JOB", () => {
    it("runs the job now, prints its one line, appends it to runs.jsonl and exits 0", async (ctx) => {
      const t = await setup(ctx, [{ match: "morning check", reply: "Good morning: two new issues." }]);
      const run = await t.cli("run", "morning");
      ctx.expect(run.code).toBe(0);
      ctx.expect(run.stdout).toMatch(new RegExp(`${LINE.source}morning ok \\d+\\.\\ds "Good morning: two new issues\\."\\n$`));
      const [record] = await t.runs();
      ctx.expect(record).toMatchObject({ job: "morning", status: "ok", reply: "Good morning: two new issues." });
      ctx.expect(Object.keys(record!).sort()).toEqual(["costUsd", "end", "job", "reply", "start", "status", "usage", "worker"]);
      ctx.expect(record!.worker).toBe(`${hostname()} pid ${process.pid}`);
    });

    it("logs a HEARTBEAT_OK reply as ok and never prints the token", async (ctx) => {
      const t = await setup(ctx, [{ match: /check the disk/, reply: "HEARTBEAT_OK" }]);
      const run = await t.cli("run", "pulse");
      ctx.expect(run.code).toBe(0);
      ctx.expect(run.stdout).toMatch(new RegExp(`${LINE.source}pulse ok \\d+\\.\\ds\\n$`));
      ctx.expect(run.stdout + run.stderr).not.toMatch(/HEARTBEAT_OK/);
      const [record] = await t.runs();
      ctx.expect(record).toMatchObject({ job: "pulse", status: "ok" });
      ctx.expect(JSON.stringify(record)).not.toMatch(/HEARTBEAT_OK/);
    });

    it("skips a heartbeat with an empty checklist without calling the model", async (ctx) => {
      const t = await setup(ctx, [{ reply: "never" }], JOBS, "# Heartbeat\n<!-- - check the disk -->\n");
      const run = await t.cli("run", "pulse");
      ctx.expect(run.code).toBe(0);
      ctx.expect(run.stdout).toMatch(/pulse skipped \d+\.\ds \(HEARTBEAT\.md has no items to check\)\n$/);
      ctx.expect(t.model.requests).toHaveLength(0);
    });

    it("exits 1 with a paused line when the API refuses the credentials", async (ctx) => {
      const t = await setup(ctx, [{ fault: { status: 401 } }]);
      const run = await t.cli("run", "morning");
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stdout).toMatch(/morning paused .*\(API error 401.*check the credentials/);
      ctx.expect((await t.runs())[0]).toMatchObject({ status: "paused" });
    });

    it("pauses a job whose agent's web tools the server does not offer, instead of failing every tick", async (ctx) => {
      const t = await setup(ctx, [{ reply: "unused" }], [{ name: "scan", schedule: "0 9 * * *", agent: "researcher", prompt: "anything new?" }], undefined, { serverTools: false });
      const run = await t.cli("run", "scan");
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stdout).toMatch(/scan paused .*agent "researcher" offers the web server tools.*set "web: false".*then `cron run JOB --force`/);
      ctx.expect((await t.runs())[0]).toMatchObject({ status: "paused" });
    });

    it("prints an alert whole on its line, however long", async (ctx) => {
      const alert = `The disk is 97% full: ${"the logs folder grew by 40 GB overnight, ".repeat(4)}clean it up.`;
      const t = await setup(ctx, [{ match: /check the disk/, reply: alert }]);
      const run = await t.cli("run", "pulse");
      ctx.expect(run.code).toBe(0);
      ctx.expect(alert.length).toBeGreaterThan(150);
      ctx.expect(run.stdout).toMatch(new RegExp(`${LINE.source}pulse alert \\d+\\.\\ds "${alert.replace(/[.$]/g, "\\$&")}"\\n$`));
    });

    it("names the jobs when asked for an unknown one", async (ctx) => {
      const t = await setup(ctx, []);
      const run = await t.cli("run", "evening");
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stderr).toMatch(/^no job "evening" in .*cron\.json \(jobs: morning, pulse\)\n$/);
    });

    it("checks credentials first, as run does", async (ctx) => {
      const dir = await tempDir("miniclaw-cron-cli-");
      const run = await runMain(["cron", "run", "morning"], { env: cleanEnv(), cwd: dir });
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/);
      ctx.expect(run.stderr.trim().split("\n")).toHaveLength(1);
    });
  });

  describe.concurrent("a paused job", () => {
    it("stays paused across processes: cron list shows it, cron run refuses it, --force runs it and a success resumes it", async (ctx) => {
      const refused = await startScriptedModel([{ fault: { status: 401 } }]);
      ctx.onTestFinished(() => refused.close());
      const t = await setup(ctx, [{ match: "morning check", reply: "Good morning." }]);
      const env401 = cleanEnv({ ANTHROPIC_BASE_URL: refused.baseURL, ANTHROPIC_API_KEY: "x" });
      const first = await runMain(["cron", "run", "morning", "--workspace", t.workspace], { env: env401, cwd: t.dir });
      ctx.expect(first.code).toBe(1);
      ctx.expect(first.stdout).toMatch(/morning paused /);
      const state = JSON.parse(await readFile(join(t.workspace, "cron", "state.json"), "utf8")) as { paused: Record<string, { reason: string }> };
      ctx.expect(Object.keys(state.paused)).toEqual(["morning"]);
      ctx.expect(state.paused["morning"]!.reason).toMatch(/401.*check the credentials/);

      const list = await runMain(["cron", "list", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      ctx.expect(list.code).toBe(0);
      const lines = list.stdout.trim().split("\n");
      ctx.expect(lines[0]).toMatch(/^morning\s+paused\s+-\s+30 7 \* \* \*$/);
      ctx.expect(lines[1]).toMatch(/^  is paused since \d{4}-\d\d-\d\d \d\d:\d\d \(.*401.*\); miniclaw cron run morning --force runs it/);
      ctx.expect(lines[2]).toMatch(/^pulse\s+disabled/);

      const again = await t.cli("run", "morning");
      ctx.expect(again.code).toBe(1);
      ctx.expect(again.stdout).toBe("");
      ctx.expect(again.stderr).toMatch(/^morning is paused since .*: miniclaw cron run morning --force runs it anyway\n$/);
      ctx.expect(t.model.requests).toHaveLength(0);

      const forced = await t.cli("run", "morning", "--force");
      ctx.expect(forced.code).toBe(0);
      ctx.expect(forced.stdout).toMatch(/morning ok \d+\.\ds "Good morning\."/);
      ctx.expect(forced.stderr).toMatch(/cron: morning is resumed/);
      const after = await runMain(["cron", "list", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      ctx.expect(after.stdout.split("\n")[0]).toMatch(/^morning\s+enabled\s+next /);
    });

    it("paused while the scheduler runs is stored, so the next scheduler leaves it out", async (ctx) => {
      const t = await setup(ctx, [{ fault: { status: 401 } }], [{ name: "often", schedule: "*/1 * * * * *", prompt: "often?" }]);
      const first = startMain(["cron", "--workspace", t.workspace], { env: t.env, cwd: t.dir });
      await until(() => /often paused/.test(first.stdout()), 10_000);
      first.signal("SIGTERM");
      ctx.expect((await first.done).code).toBe(0);
      ctx.expect(first.stderr()).toMatch(/cron: often is paused: no further runs; miniclaw cron run often --force runs it/);
      const restarted = await t.cli();
      ctx.expect(restarted.code).toBe(1);
      ctx.expect(restarted.stderr).toMatch(/^every enabled job is paused \(often\)/);
      ctx.expect(t.model.requests).toHaveLength(1);
    });

    it("is left out by the scheduler, which says so; with every job paused it does not start", async (ctx) => {
      const t = await setup(ctx, [{ reply: "tick" }], [
        { name: "stuck", schedule: "*/1 * * * * *", prompt: "stuck?" },
        { name: "often", schedule: "*/1 * * * * *", prompt: "often?" },
      ]);
      await mkdir(join(t.workspace, "cron"), { recursive: true });
      const state = { paused: { stuck: { since: "2026-12-01T09:00:00.000Z", reason: "the run cost $0.0200, over its budget of $0.01" } } };
      await writeFile(join(t.workspace, "cron", "state.json"), JSON.stringify(state));
      const run = startMain(["cron", "--workspace", t.workspace], { env: t.env, cwd: t.dir });
      await until(() => /often ok/.test(run.stdout()), 10_000);
      run.signal("SIGTERM");
      ctx.expect((await run.done).code).toBe(0);
      ctx.expect(run.stderr()).toMatch(/^cron: stuck is paused since \d{4}-\d\d-\d\d \d\d:\d\d \(the run cost \$0\.0200, over its budget of \$0\.01\); not scheduled/m);
      ctx.expect(run.stdout()).not.toMatch(/stuck/);
      ctx.expect(t.model.requests.map((r) => JSON.stringify(r.body.messages))).not.toContainEqual(ctx.expect.stringMatching(/stuck\?/));

      const allPaused = { paused: { ...state.paused, often: state.paused.stuck } };
      await writeFile(join(t.workspace, "cron", "state.json"), JSON.stringify(allPaused));
      const none = await t.cli();
      ctx.expect(none.code).toBe(1);
      ctx.expect(none.stderr).toMatch(/^every enabled job is paused \(stuck, often\): miniclaw cron list says why/);
    });
  });

  describe.concurrent("structured answers, thinking and effort", () => {
    const ISSUES = [{ name: "issues", schedule: "0 8 * * *", prompt: "count the open issues", outputSchema: "issues.schema.json" }];
    const SCHEMA = { type: "object", properties: { open: { type: "integer" } }, required: ["open"] };

    it("runs a job with an outputSchema: its line shows the object, runs.jsonl keeps it, cron runs lists it", async (ctx) => {
      const t = await setup(ctx, [{ match: "count the open issues", reply: '{"open": 4}' }], ISSUES);
      await writeFile(join(t.workspace, "issues.schema.json"), JSON.stringify(SCHEMA));
      const run = await t.cli("run", "issues");
      ctx.expect(run.code).toBe(0);
      ctx.expect(run.stdout).toMatch(new RegExp(`${LINE.source}issues ok \\d+\\.\\ds \\{"open":4\\}\\n$`));
      const [record] = await t.runs();
      ctx.expect(record).toMatchObject({ job: "issues", status: "ok", output: { open: 4 } });
      ctx.expect(Object.keys(record!).sort()).toEqual(["costUsd", "end", "job", "output", "start", "status", "usage", "worker"]);
      const runs = await runMain(["cron", "runs", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      ctx.expect(runs.code).toBe(0);
      // The same line, with the worker that ran it.
      ctx.expect(runs.stdout).toBe(run.stdout.replace(/\n$/, ` on ${hostname()} pid ${process.pid}\n`));
      const list = await runMain(["cron", "list", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      ctx.expect(list.stdout).toMatch(/^issues\s+enabled\s+next .*0 8 \* \* \*  output issues\.schema\.json\n$/);
    });

    it("exits 1 with the invalid answer and the validation problem on its line when the answer never fits the schema", async (ctx) => {
      const t = await setup(ctx, [{ reply: '{"open": "many"}' }], ISSUES);
      await writeFile(join(t.workspace, "issues.schema.json"), JSON.stringify(SCHEMA));
      const run = await t.cli("run", "issues");
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stdout).toMatch(new RegExp(`${LINE.source}issues error \\d+\\.\\ds "\\{"open": "many"\\}" \\(output_invalid: .*open.*\\)\\n$`));
    });

    it("refuses to start, naming the job and the file, when the schema file is missing", async (ctx) => {
      const t = await setup(ctx, [], ISSUES);
      const run = await t.cli("run", "issues");
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stderr).toBe(`${join(t.workspace, "cron.json")}: job "issues": outputSchema: ${join(t.workspace, "issues.schema.json")}: no such file\n`);
      ctx.expect(t.model.requests).toEqual([]);
    });

    it("--thinking and --effort reach every job's requests", async (ctx) => {
      const t = await setup(ctx, [{ reply: "Good morning." }]);
      const run = await t.cli("run", "morning", "--thinking", "adaptive", "--effort", "medium");
      ctx.expect(run.code).toBe(0);
      ctx.expect(t.model.requests[0]!.body.thinking).toEqual({ type: "adaptive" });
      ctx.expect(t.model.requests[0]!.body.output_config).toEqual({ effort: "medium" });
    });

    it("cron runs JOB lists that job's runs alone, and says when there are none", async (ctx) => {
      const t = await setup(ctx, [{ reply: "Good morning." }]);
      const none = await runMain(["cron", "runs", "morning", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      ctx.expect(none.stdout).toBe(`No runs of morning in ${join(t.workspace, "cron", "runs.jsonl")}.\n`);
      await t.cli("run", "morning");
      await t.cli("run", "pulse");
      const runs = await runMain(["cron", "runs", "morning", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      // `cron runs` names the worker of each run: its host and pid.
      ctx.expect(runs.stdout).toMatch(new RegExp(`^${LINE.source}morning ok \\d+\\.\\ds "Good morning\\." on ${hostname()} pid \\d+\\n$`));
    });
  });

  describe.concurrent("miniclaw cron list", () => {
    it("fails with the job's name when a job names an unknown agent", async (ctx) => {
      const t = await setup(ctx, [], [{ name: "digest", schedule: "0 9 * * *", prompt: "x", agent: "nobody" }]);
      const run = await runMain(["cron", "list", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stdout).toBe("");
      ctx.expect(run.stderr).toMatch(/^.*cron\.json: job "digest": agent: no agent "nobody" \(available: main, researcher\)\n$/);
    });

    it("lists each job, enabled or not, with its next run, without credentials", async (ctx) => {
      const t = await setup(ctx, []);
      const run = await runMain(["cron", "list", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      ctx.expect(run.code).toBe(0);
      const lines = run.stdout.trim().split("\n");
      ctx.expect(lines[0]).toMatch(/^morning\s+enabled\s+next \d{4}-\d\d-\d\d 07:30\s+30 7 \* \* \*$/);
      ctx.expect(lines[1]).toMatch(/^pulse\s+disabled\s+-\s+\*\/30 \* \* \* \*\s+heartbeat$/);
    });

    it("shows the seconds of the next run of a schedule with a seconds field, and not of one without", async (ctx) => {
      const t = await setup(ctx, [], [{ name: "often", schedule: "15 */5 * * * *", prompt: "x" }, { name: "hourly", schedule: "0 * * * *", prompt: "y" }]);
      const run = await runMain(["cron", "list", "--workspace", t.workspace], { env: cleanEnv(), cwd: t.dir });
      const lines = run.stdout.trim().split("\n");
      ctx.expect(lines[0]).toMatch(/^often\s+enabled\s+next \d{4}-\d\d-\d\d \d\d:\d[05]:15\s+15 \*\/5 \* \* \* \*$/);
      ctx.expect(lines[1]).toMatch(/^hourly\s+enabled\s+next \d{4}-\d\d-\d\d \d\d:00\s+0 \* \* \* \*$/);
    });
  });

  describe.concurrent("miniclaw cron", () => {
    it("runs a job due every second until SIGTERM, then exits 0 (the binary)", async (ctx) => {
      const t = await setup(ctx, [{ reply: "tick" }], [{ name: "often", schedule: "*/1 * * * * *", prompt: "tick?" }]);
      const child = spawn(process.execPath, [BIN, "cron", "--workspace", t.workspace], { env: t.env, cwd: t.dir });
      let stdout = "";
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
      await new Promise<void>((resolve) => {
        child.stdout.on("data", (d: Buffer) => {
          stdout += d.toString();
          if (/often ok/.test(stdout)) resolve();
        });
      });
      const signalled = Date.now();
      child.kill("SIGTERM");
      ctx.expect(await exited).toBe(0);
      ctx.expect(Date.now() - signalled).toBeLessThan(2_000);
      ctx.expect(stdout).toMatch(new RegExp(`${LINE.source}often ok \\d+\\.\\ds "tick"$`, "m"));
      ctx.expect(stderr).toMatch(/cron: often scheduled, next run/);
      ctx.expect(stderr).toMatch(/cron: stopped\n$/);
      ctx.expect((await t.runs()).some((r) => r["job"] === "often" && r["status"] === "ok")).toBe(true);
    });

    it("refuses to start with no enabled job", async (ctx) => {
      const t = await setup(ctx, [], [{ name: "off", schedule: "* * * * *", prompt: "x", enabled: false }]);
      const run = await t.cli();
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stderr).toMatch(/^no enabled job in .*cron\.json/);
    });

    it.for<[string, unknown, RegExp]>([
      ["a bad schedule", [{ name: "nightly", schedule: "0 25 * * *", prompt: "x" }], /cron\.json: job "nightly": schedule: "0 25 \* \* \*" is not a valid cron expression/],
      ["a missing name", [{ schedule: "* * * * *", prompt: "x" }], /cron\.json: jobs\[0\]: name: is required/],
      ["bad JSON", '{"jobs": [', /cron\.json: not valid JSON/],
      ["an unknown agent", [{ name: "r", schedule: "* * * * *", prompt: "x", agent: "nobody" }], /cron\.json: job "r": agent: no agent "nobody" \(available: main, researcher\)/],
    ])("exits 1 with one line for %s", async ([, jobs, pattern], ctx) => {
      const t = await setup(ctx, [], jobs);
      const run = await t.cli();
      ctx.expect(run.code).toBe(1);
      ctx.expect(run.stderr).toMatch(pattern);
      ctx.expect(run.stderr.trim().split("\n")).toHaveLength(1);
    });
  });
});
