// Two real `miniclaw cron` processes on one file workspace: each tick runs once, the second stands by and takes over when the first is SIGKILLed; `cron run JOB` by hand beside a scheduler.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it, type TestContext } from "vitest";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import { startScriptedModel } from "../../src/testing/index.js";
import { cleanEnv, runMain, startCli } from "../helpers/cli.js";
import { until } from "../helpers/manual-clock.js";
import { tempDir } from "../helpers/temp-dir.js";

interface Run {
  job: string;
  status: string;
  start: string;
  end: string;
  detail?: string;
}

/** A workspace with one job every second whose model answer takes `delayMs`, and the runs.jsonl it fills. */
async function setup(ctx: TestContext, delayMs: number) {
  const model = await startScriptedModel([{ match: "tick?", fault: { delayMs }, reply: "tick" }]);
  ctx.onTestFinished(() => model.close());
  const dir = await tempDir("miniclaw-cron-workers-");
  const workspace = join(dir, "ws");
  await ensureWorkspace(workspace);
  await writeFile(join(workspace, "cron.json"), JSON.stringify({ jobs: [{ name: "often", schedule: "*/1 * * * * *", prompt: "tick?" }] }));
  const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
  const start = () => {
    const worker = startCli(["cron", "--workspace", workspace], { env, cwd: dir });
    ctx.onTestFinished(async () => {
      worker.child.kill("SIGKILL");
      await worker.exited;
    });
    return worker;
  };
  const runs = async (): Promise<Run[]> => (await readFile(join(workspace, "cron", "runs.jsonl"), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as Run);
  return { model, dir, workspace, env, start, runs };
}

/** The runs (skips left out) that overlap an earlier one in time. */
function overlapping(runs: readonly Run[]): Run[] {
  const real = runs.filter((run) => run.status !== "skipped").sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
  return real.filter((run, i) => real.slice(0, i).some((before) => Date.parse(run.start) < Date.parse(before.end)));
}

const okLines = (text: string): number => text.match(/ often ok /g)?.length ?? 0;

describe.concurrent("two miniclaw cron processes on one workspace", () => {
  it("run each tick once: the second stands by, naming the first, and takes over within seconds of its SIGKILL", async (ctx) => {
    const t = await setup(ctx, 0);
    const first = t.start();
    await until(() => okLines(first.stdout()) >= 1, 15_000, "the first scheduler's first run");
    const second = t.start();
    await until(() => /standing by/.test(second.stderr()), 10_000, "the second scheduler to stand by");
    ctx.expect(second.stderr()).toMatch(new RegExp(`^cron: pid ${first.child.pid} on \\S+ runs the jobs of ${t.workspace.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}; standing by to take over when it stops$`, "m"));
    // Five ticks with both running: every one runs once, all of them in the first.
    const before = okLines(first.stdout());
    await until(() => okLines(first.stdout()) >= before + 5, 15_000, "five more ticks");
    ctx.expect(second.stdout()).toBe("");
    first.child.kill("SIGKILL");
    await first.exited;
    const killed = Date.now();
    await until(() => okLines(second.stdout()) >= 1, 10_000, "the second scheduler to run a tick");
    ctx.expect(Date.now() - killed).toBeLessThan(4_000);
    ctx.expect(second.stderr()).toMatch(/cron: the scheduler before this one has stopped; this one runs the jobs of .* now\n/);
    second.child.kill("SIGTERM");
    ctx.expect(await second.exited).toBe(0);
    const runs = await t.runs();
    const seconds = runs.map((run) => Math.floor(Date.parse(run.start) / 1000));
    ctx.expect(new Set(seconds).size).toBe(seconds.length);
    ctx.expect(runs.every((run) => run.status === "ok")).toBe(true);
    ctx.expect(overlapping(runs)).toEqual([]);
    // A run cut short by the kill reached the model without a record; nothing else did.
    ctx.expect(t.model.requests.length - runs.length).toBeLessThanOrEqual(1);
    ctx.expect(t.model.rejected).toEqual([]);
  }, 60_000);

  it("skips the scheduler's ticks while cron run JOB runs the job by hand, and refuses a second hand run meanwhile", async (ctx) => {
    const t = await setup(ctx, 4_000);
    const byHand = runMain(["cron", "run", "often", "--workspace", t.workspace], { env: t.env, cwd: t.dir });
    // Its request has reached the model: it holds the job's lock for the 4 s the answer takes.
    await until(() => t.model.requests.length === 1, 10_000, "the hand run's request");
    const second = await runMain(["cron", "run", "often", "--workspace", t.workspace], { env: t.env, cwd: t.dir });
    ctx.expect(second.code).toBe(1);
    ctx.expect(second.stderr).toMatch(/^often is running now, in another process; try again when that run ends \(miniclaw cron runs often\)\n$/);
    const scheduler = t.start();
    const hand = await byHand;
    ctx.expect(hand.code).toBe(0);
    await until(() => okLines(scheduler.stdout()) >= 1, 15_000, "the scheduler's own run");
    scheduler.child.kill("SIGTERM");
    ctx.expect(await scheduler.exited).toBe(0);
    const runs = await t.runs();
    const handRun = runs.find((run) => run.status === "ok")!;
    const skippedDuring = runs.filter((run) => run.status === "skipped" && run.start >= handRun.start && run.start <= handRun.end);
    ctx.expect(skippedDuring.length).toBeGreaterThanOrEqual(1);
    ctx.expect(skippedDuring.every((run) => run.detail === "the previous run is still going")).toBe(true);
    ctx.expect(overlapping(runs)).toEqual([]);
    ctx.expect(t.model.requests.length).toBe(runs.filter((run) => run.status === "ok").length);
  }, 60_000);
});
