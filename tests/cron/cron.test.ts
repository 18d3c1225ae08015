import { describe, it } from "vitest";
import { ABORT_SETTLE_MS, startScheduler, type CronJob, type RunJob, type RunOutcome, type RunRecord, type StartTimer } from "../../src/cron/index.js";
import { manualClock, until } from "../helpers/manual-clock.js";

const EVERY_SECOND = "*/1 * * * * *";
const job = (name: string, extra: Partial<CronJob> = {}): CronJob => ({ name, schedule: EVERY_SECOND, session: `cron:${name}`, heartbeat: false, enabled: true, prompt: "go", ...extra });

/** Timers that tick when the test says so; `tick` calls the scheduler's callback even after a cancel, as a late timer could. */
function manualTimers() {
  const timers = new Map<string, { tick: () => void; cancelled: boolean }>();
  const startTimer: StartTimer = (j, tick) => {
    const timer = { tick, cancelled: false };
    timers.set(j.name, timer);
    return { cancel: () => void (timer.cancelled = true) };
  };
  return { startTimer, timers, tick: (name: string) => timers.get(name)!.tick(), cancelled: (name: string) => timers.get(name)?.cancelled };
}

/** A run that lasts until the test ends it, or until it is aborted (then it reports so). */
function heldRun() {
  let finish = (): void => {};
  const run = (signal: AbortSignal): Promise<RunOutcome> =>
    new Promise((resolve) => {
      finish = () => resolve({ status: "ok", reply: "slow done" });
      signal.addEventListener("abort", () => resolve({ status: "error", detail: "aborted" }), { once: true });
    });
  return { run, finish: () => finish() };
}

/** Starts a scheduler on manual timers and a manual clock; records, log lines and calls per job are collected. */
function start(jobs: CronJob[], behaviour: Record<string, (signal: AbortSignal) => Promise<RunOutcome>>) {
  const records: RunRecord[] = [];
  const logs: string[] = [];
  const calls: Record<string, number> = {};
  const runJob: RunJob = async (j, signal) => {
    calls[j.name] = (calls[j.name] ?? 0) + 1;
    return behaviour[j.name]!(signal);
  };
  const timers = manualTimers();
  const clock = manualClock();
  const scheduler = startScheduler({ jobs, runJob, clock, startTimer: timers.startTimer, log: (line) => logs.push(line), onRecord: (r) => void records.push(r) });
  const of = (name: string, status?: string): RunRecord[] => records.filter((r) => r.job === name && (!status || r.status === status));
  return { scheduler, records, logs, calls, of, clock, ...timers };
}

describe.concurrent("the cron scheduler", () => {
  it("runs a job at each tick, each run isolated from a job that throws", async ({ expect }) => {
    const s = start([job("fast"), job("broken")], {
      fast: async () => ({ status: "ok", reply: "fine" }),
      broken: async () => {
        throw new Error("disk on fire");
      },
    });
    for (const round of [1, 2]) {
      s.tick("broken");
      s.tick("fast");
      await until(() => s.records.length === 2 * round);
    }
    await s.scheduler.stop(100);
    expect(s.of("fast", "ok")).toHaveLength(2);
    expect(s.of("broken")).toHaveLength(2);
    expect(s.of("broken").every((r) => r.status === "error" && r.detail === "disk on fire")).toBe(true);
    expect(s.records.findLastIndex((r) => r.job === "fast")).toBeGreaterThan(s.records.findIndex((r) => r.job === "broken"));
    expect(s.of("fast")[0]).toMatchObject({ job: "fast", status: "ok", reply: "fine" });
  });

  it("never overlaps a slow run: the ticks while it runs are skipped and recorded", async ({ expect }) => {
    const held = heldRun();
    const s = start([job("slow")], { slow: held.run });
    s.tick("slow");
    s.tick("slow");
    s.tick("slow");
    await until(() => s.of("slow", "skipped").length === 2);
    expect(s.calls["slow"]).toBe(1);
    expect(s.of("slow", "skipped").map((r) => r.detail)).toEqual(["the previous run is still going", "the previous run is still going"]);
    const stopped = s.scheduler.stop(5_000);
    held.finish();
    await stopped;
    expect(s.of("slow", "ok")).toHaveLength(1);
  });

  it("pauses a job whose run says paused (auth or budget), and keeps the others going", async ({ expect }) => {
    const s = start([job("auth"), job("fast")], {
      auth: async () => ({ status: "paused", detail: "API error 401 (authentication_error) invalid x-api-key" }),
      fast: async () => ({ status: "ok" }),
    });
    s.tick("auth");
    s.tick("fast");
    await until(() => s.records.length === 2);
    s.tick("auth");
    s.tick("fast");
    await until(() => s.of("fast").length === 2);
    await s.scheduler.stop(100);
    expect(s.calls["auth"]).toBe(1);
    expect(s.of("auth").map((r) => r.status)).toEqual(["paused"]);
    expect(s.logs).toContain("cron: auth is paused: no further runs; miniclaw cron run auth --force runs it and, when it succeeds, resumes it");
    expect(s.cancelled("fast")).toBe(true);
  });

  it("leaves disabled jobs out", async ({ expect }) => {
    const s = start([job("off", { enabled: false }), job("on")], { off: async () => ({ status: "ok" }), on: async () => ({ status: "ok" }) });
    expect([...s.timers.keys()]).toEqual(["on"]);
    await s.scheduler.stop(100);
    expect(s.calls).toEqual({});
  });

  it("stop() lets a running job finish within the grace period, then starts nothing new", async ({ expect }) => {
    const held = heldRun();
    const s = start([job("slow")], { slow: held.run });
    s.tick("slow");
    await until(() => s.calls["slow"] === 1);
    const stopped = s.scheduler.stop(5_000);
    expect((await s.clock.nextSleep()).ms).toBe(5_000);
    held.finish();
    await stopped;
    expect(s.of("slow", "ok")).toHaveLength(1);
    expect(s.cancelled("slow")).toBe(true);
    s.tick("slow");
    expect(s.calls["slow"]).toBe(1);
    expect(s.logs).toEqual(["cron: waiting up to 5.0s for slow to finish"]);
  });

  it("stop() aborts a run still going after the grace period", async ({ expect }) => {
    const s = start([job("slow")], { slow: heldRun().run });
    s.tick("slow");
    await until(() => s.calls["slow"] === 1);
    const stopped = s.scheduler.stop(200);
    const grace = await s.clock.nextSleep();
    expect(grace.ms).toBe(200);
    grace.wake();
    await stopped;
    expect(s.of("slow").map((r) => [r.status, r.detail])).toEqual([["error", "aborted"]]);
    expect(s.logs).toEqual(["cron: waiting up to 0.2s for slow to finish", "cron: aborting slow"]);
  });

  it("stop() resolves even when a run ignores the abort, ABORT_SETTLE_MS after the grace period", async ({ expect }) => {
    const s = start([job("stuck")], { stuck: () => new Promise<RunOutcome>(() => {}) });
    s.tick("stuck");
    await until(() => s.calls["stuck"] === 1);
    const stopped = s.scheduler.stop(100);
    (await s.clock.nextSleep()).wake();
    const settle = await s.clock.nextSleep();
    expect(s.logs.at(-1)).toBe("cron: aborting stuck");
    settle.wake();
    await stopped;
    expect(s.clock.sleeps).toEqual([100, ABORT_SETTLE_MS]);
    expect(s.logs.at(-1)).toBe("cron: gave up waiting for stuck");
  });

  it("a second stop() aborts running jobs at once", async ({ expect }) => {
    const s = start([job("slow")], { slow: heldRun().run });
    s.tick("slow");
    await until(() => s.calls["slow"] === 1);
    const first = s.scheduler.stop(10_000);
    await s.clock.nextSleep();
    await s.scheduler.stop(10_000);
    await first;
    expect(s.clock.sleeps).toEqual([10_000]);
    expect(s.of("slow", "error")).toHaveLength(1);
  });
});

describe("the cron scheduler on node-schedule's timers", () => {
  it("runs a job due every second within about a second of starting", async ({ expect }) => {
    const records: RunRecord[] = [];
    const began = Date.now();
    const scheduler = startScheduler({ jobs: [job("often")], runJob: async () => ({ status: "ok" }), log: () => {}, onRecord: (r) => void records.push(r) });
    await until(() => records.length > 0, 3_000);
    await scheduler.stop(100);
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(records[0]).toMatchObject({ job: "often", status: "ok" });
  });
});
