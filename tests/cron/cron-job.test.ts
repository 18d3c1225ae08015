import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { systemClock } from "../../src/deps.js";
import { createClient } from "../../src/model/client.js";
import { ensureWorkspace } from "../../src/runtime/workspace.js";
import { startScriptedModel, type Rule } from "../../src/testing/index.js";
import type { AgentEvent, StopReason, TurnResult } from "../../src/types.js";
import { type CronJob, createJobRunner, outcomeOf } from "../../src/cron/index.js";
import { cacheTtlOf } from "../../src/cron/cron-job.js";
import { tempDir } from "../helpers/temp-dir.js";

const job = (extra: Partial<CronJob> = {}): CronJob => ({ name: "check", schedule: "* * * * *", session: "cron:check", heartbeat: false, enabled: true, prompt: "morning check", ...extra });

/** A workspace, a scripted model checked and closed after the test, and the job runner under test. */
async function setup(ctx: TestContext, rules: Rule[], checklist?: string, now?: number) {
  const model = await startScriptedModel(rules);
  ctx.onTestFinished(async () => {
    ctx.expect(model.rejected).toEqual([]);
    await model.close();
  });
  const workspace = join(await tempDir("miniclaw-cronjob-"), "ws");
  await ensureWorkspace(workspace);
  if (checklist !== undefined) await writeFile(join(workspace, "HEARTBEAT.md"), checklist);
  const env = { ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" };
  const events: AgentEvent[] = [];
  const runJob = createJobRunner({
    assistant: { workspace, cwd: workspace, env, client: createClient({ env }) },
    onEvent: (_job, event) => events.push(event),
    ...(now !== undefined && { clock: { ...systemClock, now: () => now } }),
  });
  return { model, workspace, events, run: (j: CronJob) => runJob(j, new AbortController().signal) };
}

describe.concurrent("a cron job run", () => {
  it("sends the prompt in the job's session and reports ok with the reply and usage", async (ctx) => {
    const t = await setup(ctx, [{ match: "morning check", reply: "All good this morning." }]);
    const outcome = await t.run(job());
    ctx.expect(outcome).toMatchObject({ status: "ok", reply: "All good this morning." });
    ctx.expect(outcome.usage?.outputTokens).toBeGreaterThan(0);
    ctx.expect((await readdir(join(t.workspace, "sessions"))).join()).toMatch(/cron/);
  });

  it("caches a job run more than five minutes apart for an hour, and one run every minute for five", async (ctx) => {
    const t = await setup(ctx, [{ reply: "HEARTBEAT_OK" }], "- check the disk\n");
    await t.run(job({ heartbeat: true, schedule: "*/30 * * * *" }));
    await t.run(job({ heartbeat: true }));
    const ttls = t.model.requests.map((r) => JSON.stringify((r.body.system as unknown[])[0]).includes('"ttl":"1h"'));
    ctx.expect(ttls).toEqual([true, false]);
    ctx.expect(cacheTtlOf(job({ schedule: "0 9 * * *", tz: "UTC" }), Date.now())).toBe("1h");
    ctx.expect(cacheTtlOf(job({ schedule: "*/5 * * * *" }), Date.now())).toBe("5m");
  });

  it("makes no model call for a heartbeat whose checklist holds only headings and comments", async (ctx) => {
    const t = await setup(ctx, [{ reply: "should not be asked" }], "# Heartbeat\n\n<!-- - check the disk -->\n- \n");
    ctx.expect(await t.run(job({ heartbeat: true }))).toEqual({ status: "skipped", detail: "HEARTBEAT.md has no items to check" });
    ctx.expect(t.model.requests).toHaveLength(0);
  });

  it("reads a HEARTBEAT_OK reply as ok, with the token stripped", async (ctx) => {
    const t = await setup(ctx, [{ match: /check the disk/, reply: "HEARTBEAT_OK" }], "# Heartbeat\n- check the disk\n");
    const outcome = await t.run(job({ heartbeat: true }));
    ctx.expect(outcome.status).toBe("ok");
    ctx.expect(outcome.reply).toBeUndefined();
    ctx.expect(JSON.stringify(t.model.requests[0]!.body.messages)).toMatch(/reply with exactly HEARTBEAT_OK/);
  });

  it("reads any other heartbeat reply as an alert", async (ctx) => {
    const t = await setup(ctx, [{ reply: "The disk is 95% full." }], "- check the disk\n");
    ctx.expect(await t.run(job({ heartbeat: true }))).toMatchObject({ status: "alert", reply: "The disk is 95% full." });
  });

  it("skips outside active hours without a model call", async (ctx) => {
    const t = await setup(ctx, [{ reply: "HEARTBEAT_OK" }], "- check the disk\n", Date.parse("2026-11-29T03:00:00Z"));
    const outcome = await t.run(job({ heartbeat: true, tz: "UTC", activeHours: { start: "08:00", end: "22:00" } }));
    ctx.expect(outcome).toEqual({ status: "skipped", detail: "outside active hours 08:00–22:00 UTC" });
    ctx.expect(t.model.requests).toHaveLength(0);
  });

  it("refuses commands that need approval: nobody is there to answer", async (ctx) => {
    const t = await setup(ctx, [
      { match: "morning check", reply: { toolUses: [{ name: "run_command", input: { command: "touch marker" } }] } },
      { reply: "could not: {{tool_result}}" },
    ]);
    const outcome = await t.run(job());
    ctx.expect(outcome.status).toBe("ok");
    ctx.expect(outcome.reply).toMatch(/needs the user's approval/);
    ctx.expect(t.events.find((e) => e.type === "approval")).toMatchObject({ decision: "unavailable", command: "touch marker" });
  });

  it.for([401, 403])("pauses the job on an authentication failure (%i)", async (status, ctx) => {
    const t = await setup(ctx, [{ fault: { status } }]);
    const outcome = await t.run(job());
    ctx.expect(outcome.status).toBe("paused");
    ctx.expect(outcome.detail).toMatch(new RegExp(`^API error ${status}.*; check the credentials`));
  });

  it("reports other API failures as errors, so the next tick tries again", async (ctx) => {
    const t = await setup(ctx, [{ fault: { status: 400, message: "bad things" } }]);
    ctx.expect(await t.run(job())).toMatchObject({ status: "error", detail: expect.stringMatching(/^API error 400/) });
  });

  it("pauses the job when a run passes its budget", async (ctx) => {
    const t = await setup(ctx, [{ reply: { toolUses: [{ name: "memory_search", input: { query: "tea" } }] } }]);
    const outcome = await t.run(job({ maxBudgetUsd: 1e-9 }));
    ctx.expect(outcome.status).toBe("paused");
    ctx.expect(outcome.detail).toMatch(/raise maxBudgetUsd/);
  });

  it("pauses the job when a run finished in one reply but cost more than its budget, keeping the reply", async (ctx) => {
    const t = await setup(ctx, [{ reply: { text: "all done", outputTokens: 10_000 } }]);
    const outcome = await t.run(job({ maxBudgetUsd: 0.001 }));
    ctx.expect(outcome).toMatchObject({ status: "paused", reply: "all done", detail: expect.stringMatching(/over its budget of \$0\.001/) });
  });
});

describe("the status of a finished cron turn", () => {
  const turn = (stopReason: StopReason): TurnResult => ({
    text: "the reply so far",
    stopReason,
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd: 0,
    iterations: 1,
    agentId: "main",
    sessionKey: "cron:check",
  });

  it.each<StopReason>(["end_turn", "stop_sequence", "max_tokens", "refusal"])("is ok when the model stopped on its own (%s)", (stop) => {
    expect(outcomeOf(job(), turn(stop))).toMatchObject({ status: "ok", reply: "the reply so far" });
  });

  it.each<StopReason>(["aborted", "max_iterations", "repeated_tool_call", "model_context_window_exceeded"])("is an error when the harness stopped the turn (%s)", (stop) => {
    expect(outcomeOf(job(), turn(stop))).toMatchObject({ status: "error", detail: stop });
  });
});
