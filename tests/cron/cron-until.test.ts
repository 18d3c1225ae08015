// Jobs with an end: `until` and `finalPrompt` in cron.json, the final run that ends the job, its session and its inbox.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { createClient } from "../../src/model/client.js";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import { addSteer } from "../../src/sessions/inbox.js";
import { startScriptedModel, type RecordedRequest, type Rule } from "../../src/testing/index.js";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { manualClock, until as waitUntil } from "../helpers/manual-clock.js";
import { DEFAULT_FINAL_PROMPT, hasEnded, parseCronJobs, type CronJob, startScheduler, type StartTimer, createJobRunner, type RunRecord, readPausedJobs } from "../../src/cron/index.js";
import { tempDir } from "../helpers/temp-dir.js";

const UNTIL = "2026-06-12T17:30:00+02:00";
const BEFORE = Date.parse("2026-06-12T17:00:00+02:00");
const AFTER = Date.parse("2026-06-12T18:00:00+02:00");
const job = (extra: Partial<CronJob> = {}): CronJob => ({
  name: "weekend",
  schedule: "0 * * * *",
  session: "cron:weekend",
  heartbeat: false,
  enabled: true,
  prompt: "hourly research",
  until: UNTIL,
  ...extra,
});

/** The text of the first user message of a request: the run's own message, with any steering joined to it. */
function openingText(request: RecordedRequest): string {
  const messages = request.body.messages ?? [];
  const last = messages.findLast((m) => m.role === "user" && (typeof m.content === "string" || m.content.some((b) => b.type === "text")));
  if (!last) return "";
  return typeof last.content === "string" ? last.content : last.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n");
}

/** A workspace from the templates, a scripted model checked and closed after the test, and a job runner on a clock the test sets. */
async function setup(ctx: TestContext, rules: Rule[]) {
  const model = await startScriptedModel(rules);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const workspace = join(await tempDir("miniclaw-cron-until-"), "ws");
  await ensureWorkspace(workspace);
  const env = { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" };
  const clock = manualClock(BEFORE);
  const runJob = createJobRunner({ assistant: { workspace, cwd: workspace, env, client: createClient({ env }) }, clock });
  return { model, workspace, clock, runJob, run: (j: CronJob) => runJob(j, new AbortController().signal) };
}

describe("until and finalPrompt in cron.json", () => {
  const parse = (extra: Record<string, unknown>) => parseCronJobs(JSON.stringify({ jobs: [{ name: "w", schedule: "0 * * * *", prompt: "go", ...extra }] }), "/ws/cron.json");

  it("keeps until and finalPrompt as written", () => {
    expect(parse({ until: UNTIL, finalPrompt: "freeze it" })[0]).toMatchObject({ until: UNTIL, finalPrompt: "freeze it" });
    expect(parse({ until: "2026-06-12T15:30Z" })[0]?.until).toBe("2026-06-12T15:30Z");
  });

  it.each([
    ["a date-time without its offset", { until: "2026-06-12T17:30:00" }, /^\/ws\/cron\.json: job "w": until: must be an ISO date-time with its offset/],
    ["a date alone", { until: "2026-06-12" }, /job "w": until: must be an ISO date-time with its offset/],
    ["an hour that does not exist", { until: "2026-06-12T25:00:00Z" }, /job "w": until: must be an ISO date-time/],
    ["a finalPrompt without until", { finalPrompt: "freeze it" }, /job "w": finalPrompt: is sent by the final run, after "until": set "until" too$/],
  ])("rejects %s in one line", (_what, extra, pattern) => {
    expect(() => parse(extra)).toThrow(pattern);
  });

  it("makes every run from until on a final one, and none before", () => {
    const at = Date.parse(UNTIL);
    const { until: _, ...endless } = job();
    expect([hasEnded(job(), at - 1), hasEnded(job(), at), hasEnded(job(), at + 1), hasEnded(endless, at)]).toEqual([false, true, true, false]);
  });
});

describe.concurrent("a job with an until", () => {
  it("sends its prompt before until, then at the first run past it the finalPrompt, and ends", async (ctx) => {
    const t = await setup(ctx, [
      { match: "hourly research", reply: "still researching" },
      { match: "freeze the brief", reply: "brief frozen" },
    ]);
    const first = await t.run(job({ finalPrompt: "freeze the brief" }));
    t.clock.set(AFTER);
    const final = await t.run(job({ finalPrompt: "freeze the brief" }));
    ctx.expect(t.model.requests.map(openingText)).toEqual([expect.stringContaining("hourly research"), expect.stringContaining("freeze the brief")]);
    ctx.expect(openingText(t.model.requests[1]!)).not.toMatch(/hourly research/);
    ctx.expect(first).toMatchObject({ status: "ok", reply: "still researching" });
    ctx.expect(final).toMatchObject({ status: "ok", reply: "brief frozen", ended: `ended at its until ${UNTIL} after its final run` });
  });

  it("sends the default final prompt when cron.json gives none", async (ctx) => {
    const t = await setup(ctx, [{ reply: "done" }]);
    t.clock.set(AFTER);
    ctx.expect(await t.run(job())).toMatchObject({ status: "ok", ended: expect.stringMatching(/^ended at its until/) });
    ctx.expect(openingText(t.model.requests[0]!)).toContain(DEFAULT_FINAL_PROMPT);
  });

  it("keeps the job on when its final run fails, so the next tick makes the final run again", async (ctx) => {
    const t = await setup(ctx, [{ fault: { status: 400, message: "bad things" }, times: 1 }, { reply: "frozen at last" }]);
    t.clock.set(AFTER);
    const failed = await t.run(job());
    const retried = await t.run(job());
    ctx.expect(failed).toMatchObject({ status: "error", detail: expect.stringMatching(/^API error 400.*; the final run \(after until .*\) is tried again at the next tick$/) });
    ctx.expect(retried).toMatchObject({ status: "ok", reply: "frozen at last", ended: expect.stringMatching(/^ended at its until/) });
  });

  it("says both when the final run also passes its budget", async (ctx) => {
    const t = await setup(ctx, [{ reply: { text: "frozen", outputTokens: 10_000 } }]);
    t.clock.set(AFTER);
    ctx.expect(await t.run(job({ maxBudgetUsd: 0.001 }))).toMatchObject({ status: "paused", ended: expect.stringMatching(/^ended at its until .* after its final run$/), detail: expect.stringMatching(/^the run cost .* over its budget/) });
  });

  it("runs in the session cron.json names, which keeps the conversation from one run to the next", async (ctx) => {
    const t = await setup(ctx, [{ reply: "noted: {{user_text}}" }]);
    const { until: _, ...weekend } = job({ session: "agent:researcher:weekend", agent: "researcher" });
    await t.run(weekend);
    await t.run(weekend);
    ctx.expect((await readdir(join(t.workspace, "sessions"))).filter((name) => name.endsWith(".jsonl"))).toEqual(["agent#researcher#weekend.jsonl"]);
    ctx.expect(t.model.requests[1]!.body.messages?.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    ctx.expect(JSON.stringify(t.model.requests[1]!.body.system)).toMatch(/You are Scout/);
  });

  it("reads the session's inbox at a wake-up: steering left between runs joins the run's message, once", async (ctx) => {
    const t = await setup(ctx, [{ reply: "ok" }]);
    await addSteer(join(t.workspace, "sessions"), "cron:weekend", "focus on the coast, not the mountains");
    await t.run(job());
    await t.run(job());
    ctx.expect(openingText(t.model.requests[0]!)).toMatch(/^hourly research[\s\S]*\nThe user added: focus on the coast, not the mountains$/);
    ctx.expect(openingText(t.model.requests[1]!)).not.toMatch(/The user added/);
  });
});

describe.concurrent("the scheduler and an ended job", () => {
  it("runs the final run at the first tick past until, then never again", async (ctx) => {
    const t = await setup(ctx, [{ reply: "ok" }]);
    const records: RunRecord[] = [];
    const logs: string[] = [];
    const ticks: Array<() => void> = [];
    const cancelled: boolean[] = [];
    const startTimer: StartTimer = (_job, tick) => {
      ticks.push(tick);
      return { cancel: () => void cancelled.push(true) };
    };
    const scheduler = startScheduler({ jobs: [job()], runJob: t.runJob, clock: t.clock, startTimer, log: (line) => logs.push(line), onRecord: (r) => void records.push(r) });
    for (const [index, at] of [BEFORE, AFTER].entries()) {
      t.clock.set(at);
      ticks[0]!();
      await waitUntil(() => records.length === index + 1);
    }
    t.clock.set(AFTER + 3_600_000);
    // A tick after the final run: the job has ended (its final run succeeded), so nothing runs.
    ticks[0]!();
    await scheduler.stop(100);
    ctx.expect(records.map((r) => [r.status, r.ended !== undefined])).toEqual([["ok", false], ["ok", true]]);
    ctx.expect(t.model.requests).toHaveLength(2);
    // The timer is cancelled by the stop alone: a paused job's ticks do nothing, so a pause lifted meanwhile applies.
    ctx.expect(cancelled).toEqual([true]);
    ctx.expect(logs).toEqual([`cron: weekend has ended (its until, ${UNTIL}, has passed): no further runs; miniclaw cron run weekend --force runs it once more`]);
  });
});

describe.concurrent("miniclaw cron with an ended job", () => {
  it("stores the end as a pause that cron list shows; cron run refuses it, and --force runs it once more", async (ctx) => {
    const model = await startScriptedModel([{ reply: "frozen" }]);
    ctx.onTestFinished(async () => {
      ctx.expect(model.rejected).toEqual([]);
      await model.close();
    });
    const dir = await tempDir("miniclaw-cron-until-cli-");
    const workspace = join(dir, "ws");
    await ensureWorkspace(workspace);
    // Past on the real clock: `cron run` reads the system's.
    await writeFile(join(workspace, "cron.json"), JSON.stringify({ jobs: [{ name: "weekend", schedule: "0 * * * *", prompt: "research", until: "2020-01-01T00:00:00Z", finalPrompt: "freeze it" }] }));
    const env = cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" });
    const cli = (...args: string[]) => runMain(["cron", ...args, "--workspace", workspace], { env, cwd: dir });

    const final = await cli("run", "weekend");
    // The final run went well: the job ended, and that is no failure.
    ctx.expect(final.code).toBe(0);
    ctx.expect(final.stdout).toMatch(/weekend ok \d+\.\ds "frozen" \(final run: ended at its until 2020-01-01T00:00:00Z after its final run\)\n$/);
    ctx.expect((await readPausedJobs(workspace))["weekend"]?.reason).toBe("ended at its until 2020-01-01T00:00:00Z after its final run");
    const list = await cli("list");
    ctx.expect(list.stdout).toMatch(/^weekend +ended +- +0 \* \* \* \*\n {2}has ended since .* \(ended at its until 2020-01-01T00:00:00Z after its final run\); miniclaw cron run weekend --force runs its final wake-up once more; the job stays ended\n/);
    const refused = await cli("run", "weekend");
    ctx.expect(refused.code).toBe(1);
    ctx.expect(refused.stderr).toMatch(/weekend has ended since .*ended at its until.*--force runs it anyway/);
    ctx.expect(model.requests).toHaveLength(1);

    const forced = await cli("run", "weekend", "--force");
    ctx.expect(forced.code).toBe(0);
    ctx.expect(forced.stdout).toMatch(/weekend ok .*"frozen" \(final run: ended at its until/);
    ctx.expect(model.requests.map(openingText)).toEqual([expect.stringContaining("freeze it"), expect.stringContaining("freeze it")]);
    ctx.expect((await readPausedJobs(workspace))["weekend"]?.reason).toMatch(/^ended at its until/);
    const runs = (await readFile(join(workspace, "cron", "runs.jsonl"), "utf8")).trim().split("\n");
    ctx.expect(runs.map((line) => (JSON.parse(line) as RunRecord).status)).toEqual(["ok", "ok"]);
  });
});
