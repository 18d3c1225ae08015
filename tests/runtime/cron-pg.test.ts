import { afterEach, describe, it } from "vitest";
import { resolveDatabaseConfig } from "../../src/db/config.js";
import { openDatabase, type Database } from "../../src/db/database.js";
import type { StartTimer } from "../../src/runtime/cron.js";
import type { CronJob } from "../../src/runtime/cron-config.js";
import { openCronQueue, type CronQueue } from "../../src/runtime/cron-pg.js";
import { startDatabaseScheduler } from "../../src/runtime/cron-pg-scheduler.js";
import type { RunJob, RunOutcome, RunRecord } from "../../src/runtime/cron-runs.js";
import { databaseCronStore, inTransaction } from "../../src/runtime/cron-table.js";
import { databaseUnavailable, newTestSchema, type TestSchema } from "../helpers/pg.js";

const unavailable = await databaseUnavailable();

const job = (name: string, extra: Partial<CronJob> = {}): CronJob => ({ name, schedule: "*/1 * * * * *", session: `cron:${name}`, heartbeat: false, enabled: true, prompt: "go", ...extra });
const T0 = Date.parse("2026-12-01T09:00:00Z");
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);

/** Waits until `condition` (sync or not) holds, polling; throws after `timeoutMs`. */
async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${condition.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Timers fired by the test with a scheduled time of its choosing. */
function manualTimers() {
  const ticks: Array<(scheduledAt?: Date) => void> = [];
  const startTimer: StartTimer = (_job, tick) => {
    ticks.push(tick);
    return { cancel: () => undefined };
  };
  return { startTimer, fire: (when: Date) => ticks.forEach((tick) => tick(when)) };
}

interface Worker {
  name: string;
  queue: CronQueue;
  records: RunRecord[];
  logs: string[];
  stop(): Promise<void>;
}

describe.skipIf(unavailable !== undefined)("the cron scheduler on PostgreSQL", () => {
  let schema: TestSchema;
  let database: Database;
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(): Promise<Database> {
    schema = newTestSchema();
    database = await openDatabase(resolveDatabaseConfig({ url: schema.url, schema: schema.schema }, {})!);
    cleanups.push(() => schema.drop(), () => database.close());
    return database;
  }

  /** One worker (its own pg-boss) on manual timers; `runJob` is shared by the test. */
  async function startWorker(name: string, jobs: CronJob[], runJob: RunJob, timers = manualTimers()): Promise<Worker & { fire: (when: Date) => void }> {
    const logs: string[] = [];
    const records: RunRecord[] = [];
    const queue = await openCronQueue(database, jobs.map((j) => j.name), (line) => logs.push(line));
    const scheduler = startDatabaseScheduler({ database, queue, jobs, runJob, startTimer: timers.startTimer, log: (l) => logs.push(l), onRecord: (r) => void records.push(r), worker: name, pollMs: 300 });
    let stopped = false;
    const stop = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      await scheduler.stop(5_000);
      await queue.stop();
    };
    cleanups.push(stop);
    return { name, queue, records, logs, stop, fire: timers.fire };
  }

  const rows = async (sql: string, values: unknown[] = []) => (await database.pool.query(sql, values)).rows as Array<Record<string, unknown>>;

  it("runs a tick once though three workers fire it, and records it with its tick", async ({ expect }) => {
    await open();
    let calls = 0;
    const runJob: RunJob = async () => ((calls += 1), { status: "ok", reply: "done" });
    const workers = await Promise.all(["a", "b", "c"].map((n) => startWorker(n, [job("pulse")], runJob)));
    for (const w of workers) w.fire(at(0));
    await until(async () => (await rows(`SELECT 1 FROM ${database.table("cron_runs")}`)).length === 1);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(calls).toBe(1);
    const ticks = await rows(`SELECT job, tick, claimed_by FROM ${database.table("cron_ticks")}`);
    expect(ticks).toHaveLength(1);
    const [run] = await rows(`SELECT job, tick, attempt, status, record FROM ${database.table("cron_runs")}`);
    expect(run).toMatchObject({ job: "pulse", tick: at(0), attempt: 1, status: "ok", record: { job: "pulse", status: "ok", reply: "done" } });
    expect(workers.flatMap((w) => w.records)).toHaveLength(1);
  });

  it("skips and records a tick that comes while the run is still going, on any worker; never queues it", async ({ expect }) => {
    await open();
    let release = (): void => {};
    let calls = 0;
    const runJob: RunJob = () => ((calls += 1), new Promise<RunOutcome>((resolve) => (release = () => resolve({ status: "ok", reply: "slow" }))));
    const [a, b] = await Promise.all([startWorker("a", [job("slow")], runJob), startWorker("b", [job("slow")], runJob)]);
    a.fire(at(0));
    await until(() => calls === 1);
    b.fire(at(1));
    a.fire(at(2));
    await until(async () => (await rows(`SELECT 1 FROM ${database.table("cron_runs")} WHERE status = 'skipped'`)).length === 2);
    release();
    await until(async () => (await rows(`SELECT 1 FROM ${database.table("cron_runs")} WHERE status = 'ok'`)).length === 1);
    await new Promise((r) => setTimeout(r, 800));
    expect(calls).toBe(1);
    const runs = await rows(`SELECT tick, status, record->>'detail' AS detail FROM ${database.table("cron_runs")} ORDER BY tick`);
    expect(runs).toEqual([
      { tick: at(0), status: "ok", detail: null },
      { tick: at(1), status: "skipped", detail: "the previous run is still going" },
      { tick: at(2), status: "skipped", detail: "the previous run is still going" },
    ]);
  });

  it("stores a pause that every worker sees at its next tick, until it is lifted", async ({ expect }) => {
    await open();
    let calls = 0;
    const runJob: RunJob = async () => {
      calls += 1;
      return calls === 1 ? { status: "paused", detail: "API error 401; check the credentials the API was given" } : { status: "ok" };
    };
    const [a, b] = await Promise.all([startWorker("a", [job("watch")], runJob), startWorker("b", [job("watch")], runJob)]);
    a.fire(at(0));
    await until(() => a.records.length + b.records.length === 1);
    const store = databaseCronStore(database);
    expect(Object.keys(await store.readPauses())).toEqual(["watch"]);
    expect(a.logs.join("\n")).toMatch(/watch is paused: no further runs/);
    for (const second of [1, 2]) for (const w of [a, b]) w.fire(at(second));
    await new Promise((r) => setTimeout(r, 800));
    expect(calls).toBe(1);
    await store.setPause("watch", undefined);
    b.fire(at(3));
    await until(() => a.records.length + b.records.length === 2);
    expect((await store.readRuns("watch", 10)).map((r) => r.status)).toEqual(["paused", "ok"]);
  });

  /** A worker that sent and fetched the run of `name` for `tick` (`deaths` times), then vanished: pg-boss holds it active, no one holds the run lock. */
  async function orphanRun(name: string, tick: Date, deaths: number): Promise<void> {
    const dead = await openCronQueue(database, [name], () => undefined);
    await inTransaction(database, (client) => dead.send(client, name, tick));
    for (let i = 0; i < deaths; i++) {
      const run = await dead.fetch(name);
      if (!run) throw new Error("the orphan was not fetched");
      if (i < deaths - 1) await inTransaction(database, (client) => dead.failOrphan(client, name, run, "test"));
    }
    await dead.stop();
  }

  it("fails a run whose worker died, records it, and runs it once more elsewhere", async ({ expect }) => {
    await open();
    await orphanRun("nightly", at(0), 1);
    let calls = 0;
    const runJob: RunJob = async () => ((calls += 1), { status: "ok", reply: "retried" });
    const worker = await startWorker("survivor", [job("nightly")], runJob);
    await until(() => worker.records.length === 2);
    expect(calls).toBe(1);
    expect(worker.records.map((r) => [r.status, r.detail ?? null])).toEqual([
      ["error", "its worker stopped mid-run (killed, or cut off from the database); it runs once more on a worker"],
      ["ok", null],
    ]);
    const runs = await rows(`SELECT tick, attempt, status FROM ${database.table("cron_runs")} ORDER BY id`);
    expect(runs).toEqual([
      { tick: at(0), attempt: 1, status: "error" },
      { tick: at(0), attempt: 2, status: "ok" },
    ]);
  });

  it("fails for good, and records, a run whose worker died on its retry too", async ({ expect }) => {
    await open();
    await orphanRun("nightly", at(0), 2);
    let calls = 0;
    const worker = await startWorker("survivor", [job("nightly")], async () => ((calls += 1), { status: "ok" }));
    await until(() => worker.records.length === 1);
    await new Promise((r) => setTimeout(r, 800));
    expect(calls).toBe(0);
    expect(worker.records.map((r) => [r.status, r.detail])).toEqual([["error", "its worker stopped mid-run again, on its retry; not run again for this tick"]]);
    expect(await rows(`SELECT attempt, status FROM ${database.table("cron_runs")}`)).toEqual([{ attempt: 2, status: "error" }]);
  });
});
