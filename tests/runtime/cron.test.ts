import { setTimeout as sleep } from "node:timers/promises";
import { describe, it } from "vitest";
import type { CronJob } from "../../src/runtime/cron-config.js";
import { ABORT_SETTLE_MS, startScheduler, type Scheduler } from "../../src/runtime/cron.js";
import type { RunJob, RunOutcome, RunRecord } from "../../src/runtime/cron-runs.js";

const EVERY_SECOND = "*/1 * * * * *";
const job = (name: string, extra: Partial<CronJob> = {}): CronJob => ({ name, schedule: EVERY_SECOND, session: `cron:${name}`, heartbeat: false, enabled: true, prompt: "go", ...extra });

/** Starts a scheduler whose records and log lines are collected; `byJob` counts calls per job. */
function start(jobs: CronJob[], behaviour: Record<string, (signal: AbortSignal) => Promise<RunOutcome>>) {
  const records: RunRecord[] = [];
  const logs: string[] = [];
  const calls: Record<string, number> = {};
  const runJob: RunJob = async (j, signal) => {
    calls[j.name] = (calls[j.name] ?? 0) + 1;
    return behaviour[j.name]!(signal);
  };
  const scheduler: Scheduler = startScheduler({ jobs, runJob, log: (line) => logs.push(line), onRecord: (r) => void records.push(r) });
  const of = (name: string, status?: string): RunRecord[] => records.filter((r) => r.job === name && (!status || r.status === status));
  return { scheduler, records, logs, calls, of };
}

/** Resolves when the run is aborted (the job then reports it), or after `ms`. */
const slow = (ms: number) => async (signal: AbortSignal): Promise<RunOutcome> => {
  await sleep(ms, undefined, { signal }).catch(() => {});
  return signal.aborted ? { status: "error", detail: "aborted" } : { status: "ok", reply: "slow done" };
};

describe.concurrent("the cron scheduler", () => {
  it("runs a job due every second, each run isolated from a job that throws", async ({ expect }) => {
    const s = start([job("fast"), job("broken")], {
      fast: async () => ({ status: "ok", reply: "fine" }),
      broken: async () => {
        throw new Error("disk on fire");
      },
    });
    await sleep(2_300);
    await s.scheduler.stop(100);
    expect(s.of("fast", "ok").length).toBeGreaterThanOrEqual(2);
    expect(s.of("broken").length).toBeGreaterThanOrEqual(2);
    expect(s.of("broken").every((r) => r.status === "error" && r.detail === "disk on fire")).toBe(true);
    const firstFailure = Date.parse(s.of("broken")[0]!.start);
    expect(s.of("fast").some((r) => Date.parse(r.start) > firstFailure)).toBe(true);
    expect(s.of("fast")[0]).toMatchObject({ job: "fast", status: "ok", reply: "fine" });
  });

  it("never overlaps a slow run: the ticks while it runs are skipped and recorded", async ({ expect }) => {
    const s = start([job("slow")], { slow: slow(2_400) });
    await sleep(2_300);
    expect(s.calls["slow"]).toBe(1);
    expect(s.of("slow", "skipped").length).toBeGreaterThanOrEqual(1);
    expect(s.of("slow", "skipped")[0]!.detail).toBe("the previous run is still going");
    // The run started at the first tick (up to a second in) and lasts 2.4 s: give it all the grace it needs.
    await s.scheduler.stop(5_000);
    expect(s.of("slow", "ok")).toHaveLength(1);
  });

  it("pauses a job whose run says paused (auth or budget), and keeps the others going", async ({ expect }) => {
    const s = start([job("auth"), job("fast")], {
      auth: async () => ({ status: "paused", detail: "API error 401 (authentication_error) invalid x-api-key" }),
      fast: async () => ({ status: "ok" }),
    });
    await sleep(2_300);
    await s.scheduler.stop(100);
    expect(s.calls["auth"]).toBe(1);
    expect(s.of("auth").map((r) => r.status)).toEqual(["paused"]);
    expect(s.logs).toContain("cron: auth is paused: no further runs until miniclaw cron restarts");
    expect(s.of("fast").length).toBeGreaterThanOrEqual(2);
  });

  it("leaves disabled jobs out", async ({ expect }) => {
    const s = start([job("off", { enabled: false })], { off: async () => ({ status: "ok" }) });
    await sleep(1_200);
    await s.scheduler.stop(100);
    expect(s.calls).toEqual({});
  });

  it("stop() lets a running job finish within the grace period, then starts nothing new", async ({ expect }) => {
    const s = start([job("slow")], { slow: slow(500) });
    while (s.calls["slow"] === undefined) await sleep(20);
    const began = Date.now();
    await s.scheduler.stop(5_000);
    expect(Date.now() - began).toBeLessThan(1_000);
    expect(s.of("slow", "ok")).toHaveLength(1);
    await sleep(1_100);
    expect(s.calls["slow"]).toBe(1);
  });

  it("stop() aborts a run still going after the grace period", async ({ expect }) => {
    const s = start([job("slow")], { slow: slow(10_000) });
    while (s.calls["slow"] === undefined) await sleep(20);
    const began = Date.now();
    await s.scheduler.stop(200);
    expect(Date.now() - began).toBeLessThan(800);
    expect(s.of("slow").map((r) => [r.status, r.detail])).toEqual([["error", "aborted"]]);
    expect(s.logs).toEqual(["cron: waiting up to 0.2s for slow to finish", "cron: aborting slow"]);
  });

  it("stop() resolves even when a run ignores the abort", async ({ expect }) => {
    const s = start([job("stuck")], { stuck: () => sleep(4_000).then(() => ({ status: "ok" as const })) });
    while (s.calls["stuck"] === undefined) await sleep(20);
    const began = Date.now();
    await s.scheduler.stop(100);
    const took = Date.now() - began;
    expect(took).toBeGreaterThanOrEqual(100 + ABORT_SETTLE_MS - 50);
    expect(took).toBeLessThan(100 + ABORT_SETTLE_MS + 500);
    expect(s.logs.at(-1)).toBe("cron: gave up waiting for stuck");
  });

  it("a second stop() aborts running jobs at once", async ({ expect }) => {
    const s = start([job("slow")], { slow: slow(10_000) });
    while (s.calls["slow"] === undefined) await sleep(20);
    const began = Date.now();
    const first = s.scheduler.stop(10_000);
    await sleep(50);
    await s.scheduler.stop(10_000);
    await first;
    expect(Date.now() - began).toBeLessThan(500);
    expect(s.of("slow", "error")).toHaveLength(1);
  });
});
