// Cron on PostgreSQL through the module's entry: workers are openPostgres(...).cron claims under the one scheduler.
// A worker that died mid-run is planted with pg-boss itself (openCronQueue), an internal on purpose.
import { afterEach, describe, it } from "vitest";
import { startScheduler, type CronJob, type RunJob, type RunOutcome, type RunRecord, type StartTimer } from "../../src/cron/index.js";
import { openPostgres, STALE_DETAIL, type Postgres } from "../../src/postgres/index.js";
import { PROCESS_NAME, type Database } from "../../src/postgres/database.js";
import { inTransaction } from "../../src/postgres/transaction.js";
import { openCronQueue, runLock } from "../../src/postgres/cron-pg.js";
import { databaseUnavailable, newTestSchema, withTestClient, type TestSchema } from "../helpers/pg.js";
import { until as waitUntil } from "../helpers/manual-clock.js";

const unavailable = await databaseUnavailable();

// Daily at midnight, and the test's ticks (fired by hand) a few seconds after today's midnight: a run is stale
// only once it is later than the job's next time after its tick, so these stay fresh all day, whatever the minute.
const job = (name: string, extra: Partial<CronJob> = {}): CronJob => ({ name, schedule: "0 0 0 * * *", session: `cron:${name}`, heartbeat: false, enabled: true, prompt: "go", ...extra });
const T0 = new Date().setHours(0, 0, 0, 0);
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);

/** Waits until `condition` holds, as long as a run on a loaded machine may take. */
const until = (condition: () => boolean | Promise<boolean>): Promise<void> => waitUntil(condition, 8_000);

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
  records: RunRecord[];
  logs: string[];
  stop(graceMs?: number): Promise<void>;
}

describe.skipIf(unavailable !== undefined)("the cron scheduler on PostgreSQL", () => {
  let schema: TestSchema;
  let pg: Postgres;
  let database: Database;
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function open(): Promise<Database> {
    schema = newTestSchema();
    pg = await openPostgres({ url: schema.url, schema: schema.schema });
    database = pg.sessions.database;
    cleanups.push(() => schema.drop(), () => pg.close());
    return database;
  }

  /** One worker (its own pg-boss) on manual timers; `runJob` is shared by the test. */
  async function startWorker(name: string, jobs: CronJob[], runJob: RunJob, extra: { maxRuns?: number } = {}): Promise<Worker & { fire: (when: Date) => void }> {
    const timers = manualTimers();
    const logs: string[] = [];
    const records: RunRecord[] = [];
    const log = (line: string): void => void logs.push(line);
    const claims = await pg.cron.openClaims(jobs, { log, worker: name, pollMs: 300, ...extra });
    const scheduler = startScheduler({ jobs, runJob, claims, startTimer: timers.startTimer, log, onRecord: (r) => void records.push(r) });
    let stopped = false;
    const stop = async (graceMs = 5_000): Promise<void> => {
      if (stopped) return;
      stopped = true;
      await scheduler.stop(graceMs);
    };
    cleanups.push(stop);
    return { name, records, logs, stop, fire: timers.fire };
  }

  const rows = async (sql: string, values: unknown[] = []) => (await database.pool.query(sql, values)).rows as Array<Record<string, unknown>>;
  /** No run of any job waiting, retrying or active in pg-boss: nothing more will run until a tick sends one. */
  const queueSettled = async (): Promise<boolean> => (await rows(`SELECT 1 FROM "${database.schema}_boss".job WHERE state < 'completed'`)).length === 0;
  /** The claims of `n` ticks are committed: whatever they were to send or skip is done. */
  const ticksClaimed = (n: number) => async (): Promise<boolean> => (await rows(`SELECT 1 FROM ${database.table("cron_ticks")}`)).length === n;

  it("runs a tick once though three workers fire it, and records it with its tick", async ({ expect }) => {
    await open();
    let calls = 0;
    const runJob: RunJob = async () => ((calls += 1), { status: "ok", reply: "done" });
    const workers = await Promise.all(["a", "b", "c"].map((n) => startWorker(n, [job("pulse")], runJob)));
    for (const w of workers) w.fire(at(0));
    await until(async () => (await rows(`SELECT 1 FROM ${database.table("cron_runs")}`)).length === 1);
    // Stopping waits for every claim and attempt in flight: after it nothing more can run.
    await Promise.all(workers.map((w) => w.stop()));
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
    await Promise.all([a.stop(), b.stop()]);
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
    const store = pg.cron.store;
    expect(Object.keys(await store.readPauses())).toEqual(["watch"]);
    expect(a.logs.join("\n")).toMatch(/watch is paused: no further runs/);
    for (const second of [1, 2]) for (const w of [a, b]) w.fire(at(second));
    await until(ticksClaimed(3));
    expect(await queueSettled()).toBe(true);
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
      const run = await dead.fetch(database.pool, name);
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
    await until(queueSettled);
    await worker.stop();
    expect(calls).toBe(0);
    expect(worker.records.map((r) => [r.status, r.detail])).toEqual([["error", "its worker stopped mid-run again, on its retry; not run again for this tick"]]);
    expect(await rows(`SELECT attempt, status FROM ${database.table("cron_runs")}`)).toEqual([{ attempt: 2, status: "error" }]);
  });

  it("records a run sent while no worker ran, fetched later than one interval after its tick, as skipped rather than running it late", async ({ expect }) => {
    await open();
    const sender = await openCronQueue(database, ["nightly"], () => undefined);
    await inTransaction(database, (client) => sender.send(client, "nightly", new Date(T0 - 120_000)));
    await sender.stop();
    let calls = 0;
    const worker = await startWorker("late", [job("nightly")], async () => ((calls += 1), { status: "ok" }));
    await until(() => worker.records.length === 1);
    await until(queueSettled);
    await worker.stop();
    expect(calls).toBe(0);
    expect(worker.records.map((r) => [r.status, r.detail])).toEqual([["skipped", STALE_DETAIL]]);
  });

  it("skips a tick that comes while cron run holds the job's run lock", async ({ expect }) => {
    await open();
    let calls = 0;
    const worker = await startWorker("a", [job("pulse")], async () => ((calls += 1), { status: "ok" }));
    const lock = await pg.cron.claimRun(job("pulse"), () => undefined);
    expect(lock).toBeDefined();
    worker.fire(at(0));
    await until(() => worker.records.length === 1);
    await lock!.release();
    await worker.stop();
    expect(calls).toBe(0);
    expect(worker.records.map((r) => [r.status, r.detail])).toEqual([["skipped", "the previous run is still going"]]);
  });

  it("holds each run lock on a connection of its own, and runs no more jobs at once than its maxRuns", async ({ expect }) => {
    await open();
    const going = new Map<string, () => void>();
    const runJob: RunJob = (j) => new Promise<RunOutcome>((resolve) => going.set(j.name, () => resolve({ status: "ok" })));
    const jobs = [job("one"), job("two"), job("three")];
    const a = await startWorker("a", jobs, runJob, { maxRuns: 2 });
    a.fire(at(0));
    await until(() => going.size === 2);
    const keys = jobs.map((j) => database.lockKey(runLock(j.name)));
    const holders = await withTestClient(async (client) => {
      const { rows: held } = await client.query<{ pid: number; key: string }>(
        `SELECT pid, ((classid::bigint << 32) | objid::bigint)::text AS key FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1`,
      );
      return held.filter((row) => keys.includes(row.key));
    });
    expect(holders).toHaveLength(2);
    expect(new Set(holders.map((row) => row.pid)).size).toBe(2);
    // The third waits in its queue for a worker with room: another one's poller takes it.
    const b = await startWorker("b", jobs, runJob);
    await until(() => going.size === 3);
    for (const finish of going.values()) finish();
    await until(async () => (await rows(`SELECT 1 FROM ${database.table("cron_runs")} WHERE status = 'ok'`)).length === 3);
    const byWorker = await rows(`SELECT worker, count(*)::int AS runs FROM ${database.table("cron_runs")} GROUP BY worker ORDER BY worker`);
    expect(byWorker).toEqual([
      { worker: "a", runs: 2 },
      { worker: "b", runs: 1 },
    ]);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("goes on after its connections are terminated mid-claim: one line logged, the next tick runs", async ({ expect }) => {
    await open();
    let calls = 0;
    const worker = await startWorker("a", [job("pulse")], async () => ((calls += 1), { status: "ok" }));
    const name = PROCESS_NAME;
    await withTestClient(async (holder) => {
      // Holding the tick's lock keeps the worker's claim waiting on a checked-out connection.
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock($1::bigint)", [database.lockKey("cron-tick:pulse")]);
      worker.fire(at(0));
      // Watched and cut from another client: a transaction keeps its first view of pg_stat_activity to its end, so the
      // holder would never see, nor terminate, a connection the worker opened after that (its idle one busy polling).
      await withTestClient(async (client) => {
        await until(async () => (await client.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [name])).rows.length === 1);
        await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [name]);
      });
      await holder.query("COMMIT");
    });
    await until(() => worker.logs.length === 1);
    expect(worker.logs[0]).toMatch(/^cron: lost the database \(terminating connection due to administrator command\); ticks and runs wait until it is back$/);
    worker.fire(at(1));
    await until(() => worker.records.length === 1);
    expect(calls).toBe(1);
    expect(worker.records.map((r) => r.status)).toEqual(["ok"]);
    expect(worker.logs).toHaveLength(1);
  });

  it("fails to open its queue, without ending the process, when its connection is terminated mid-install", async ({ expect }) => {
    await open();
    const name = PROCESS_NAME;
    const opened = await withTestClient(async (client) => {
      await client.query("SELECT pg_advisory_lock($1::bigint)", [database.lockKey("pg-boss install")]);
      const opening = openCronQueue(database, ["pulse"], () => undefined).then(
        (queue) => queue.stop().then(() => "opened"),
        (error: Error) => error.message,
      );
      await until(async () => (await client.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [name])).rows.length === 1);
      await client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [name]);
      return opening;
    });
    expect(opened).toMatch(/terminating connection due to administrator command/);
  });

  /** A job that runs until its signal aborts, then reports why. */
  const untilAborted = (started: AbortSignal[]): RunJob => (_job, signal) =>
    new Promise<RunOutcome>((resolve) => {
      started.push(signal);
      signal.addEventListener("abort", () => resolve({ status: "error", detail: "aborted" }), { once: true });
    });

  it("aborts a run whose run lock's connection is lost, stores nothing for it, and the next holder retries it once", async ({ expect }) => {
    await open();
    const signals: AbortSignal[] = [];
    const slow = untilAborted(signals);
    let retries = 0;
    const a = await startWorker("a", [job("pulse")], (j, signal) => (signals.length === 0 ? slow(j, signal) : ((retries += 1), Promise.resolve({ status: "ok" }))));
    a.fire(at(0));
    await until(() => signals.length === 1);
    const key = database.lockKey(runLock("pulse"));
    await withTestClient((client) => client.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = $1::bigint`, [key]));
    await until(() => signals[0]!.aborted);
    await until(() => a.logs.some((line) => /lost its run lock mid-run/.test(line)));
    expect(a.logs[0]).toMatch(/^cron: pulse: lost its run lock mid-run \(terminating connection due to administrator command\); the run was aborted and is left to the next worker to retry$/);
    // The next holder (this worker's poller, on a new connection) finds the run orphaned: recorded, retried once.
    await until(() => a.records.length === 2);
    await a.stop();
    expect(retries).toBe(1);
    expect(await rows(`SELECT attempt, status FROM ${database.table("cron_runs")} ORDER BY id`)).toEqual([
      { attempt: 1, status: "error" },
      { attempt: 2, status: "ok" },
    ]);
    expect(a.records[0]?.detail).toBe("its worker stopped mid-run (killed, or cut off from the database); it runs once more on a worker");
  });

  it("on stop, aborts a run still going after the grace period, records it and completes it: not run again", async ({ expect }) => {
    await open();
    const signals: AbortSignal[] = [];
    const a = await startWorker("a", [job("pulse")], untilAborted(signals));
    a.fire(at(0));
    await until(() => signals.length === 1);
    await a.stop(100);
    expect(signals[0]!.aborted).toBe(true);
    expect(a.logs).toEqual(["cron: waiting up to 0.1s for pulse to finish", "cron: aborting pulse"]);
    expect(await rows(`SELECT tick, attempt, status FROM ${database.table("cron_runs")}`)).toEqual([{ tick: at(0), attempt: 1, status: "error" }]);
    expect(await queueSettled()).toBe(true);
  });
});
