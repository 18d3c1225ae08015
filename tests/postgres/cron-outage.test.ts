// Two cron workers through an outage of their server (a throwaway cluster behind a proxy): the postmaster SIGKILLed, then a
// silent partition. Each worker logs one line per outage, the first tick after the server returns runs once, no tick runs twice.
import { describe, it, type TestContext } from "vitest";
import { startScheduler, type CronJob, type RunJob, type StartTimer } from "../../src/cron/index.js";
import { openPostgres, type Postgres } from "../../src/postgres/index.js";
import { until } from "../helpers/manual-clock.js";
import { clustersUnavailable, startCluster, type Cluster } from "../helpers/pg-cluster.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

const unavailable = clustersUnavailable("PostgreSQL cron outage tests");
const TIMEOUT_MS = 1_000;
// Daily at midnight, ticks fired by hand a few seconds after today's midnight: each stays fresh all day (see cron-pg.test.ts).
const JOB: CronJob = { name: "pulse", schedule: "0 0 0 * * *", session: "cron:pulse", heartbeat: false, enabled: true, prompt: "go" };
const T0 = new Date().setHours(0, 0, 0, 0);
const at = (seconds: number): Date => new Date(T0 + seconds * 1000);

interface Worker {
  logs: string[];
  fire(when: Date): void;
}

/** A cluster, a proxy, and two workers through it on manual timers, sharing `runJob`; all closed when the test finishes. */
async function twoWorkers(ctx: TestContext, runJob: RunJob): Promise<{ cluster: Cluster; proxy: TcpProxy; workers: Worker[]; direct: Postgres }> {
  const cluster = await startCluster();
  const proxy = await startTcpProxy(cluster.port);
  ctx.onTestFinished(async () => {
    await proxy.close();
    await cluster.destroy();
  });
  const workers = await Promise.all(["a", "b"].map(async (name) => {
    // Pool sizes apart: two databases of this process, as two worker processes would have, not one shared.
    const pg = await openPostgres({ url: proxy.via(cluster.url), schema: "miniclaw", timeoutMs: TIMEOUT_MS, poolSize: name === "a" ? 10 : 9 });
    const logs: string[] = [];
    const ticks: Array<(when?: Date) => void> = [];
    const startTimer: StartTimer = (_job, tick) => (ticks.push(tick), { cancel: () => undefined });
    const log = (line: string): void => void logs.push(line);
    const claims = await pg.cron.openClaims([JOB], { log, worker: name, pollMs: 200 });
    const scheduler = startScheduler({ jobs: [JOB], runJob, claims, startTimer, log, onRecord: () => undefined });
    ctx.onTestFinished(async () => {
      await scheduler.stop(1_000);
      await pg.close();
    });
    return { logs, fire: (when: Date) => ticks.forEach((tick) => tick(when)) };
  }));
  // The test's own view of the runs, straight to the server.
  const direct = await openPostgres({ url: cluster.url, schema: "miniclaw" });
  ctx.onTestFinished(() => direct.close());
  return { cluster, proxy, workers, direct };
}

/** The ticks of the runs stored, as seconds after T0, with their status. */
async function runs(direct: Postgres): Promise<string[]> {
  const rows = await direct.sessions.database.pool.query<{ tick: Date; status: string }>(`SELECT tick, status FROM miniclaw.cron_runs ORDER BY tick, id`);
  return rows.rows.map((row) => `${(row.tick.getTime() - T0) / 1000} ${row.status}`);
}

const outageLines = (w: Worker): string[] => w.logs.filter((line) => /lost the database/.test(line));

describe.skipIf(unavailable !== undefined).concurrent("cron workers through an outage of PostgreSQL", () => {
  it("logs one line per worker for a postmaster SIGKILL, then runs the first tick after the restart once", async (ctx) => {
    let calls = 0;
    const { cluster, workers, direct } = await twoWorkers(ctx, async () => ((calls += 1), { status: "ok" }));
    workers.forEach((w) => w.fire(at(0)));
    await until(async () => (await runs(direct)).length === 1, 8_000);
    await direct.close();
    await cluster.kill();
    for (const second of [1, 2]) workers.forEach((w) => w.fire(at(second)));
    await until(() => workers.every((w) => outageLines(w).length === 1), 8_000);
    await cluster.start();
    const back = await openPostgres({ url: cluster.url, schema: "miniclaw" });
    ctx.onTestFinished(() => back.close());
    workers.forEach((w) => w.fire(at(3)));
    await until(async () => (await runs(back)).length === 2, 8_000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    ctx.expect(await runs(back)).toEqual(["0 ok", "3 ok"]);
    ctx.expect(calls).toBe(2);
    for (const w of workers) ctx.expect(outageLines(w), w.logs.join("\n")).toHaveLength(1);
    ctx.expect(outageLines(workers[0]!)[0]).toMatch(/^cron: lost the database \([^\n]+\); ticks and runs wait until it is back$/);
  });

  it("logs one line per worker for a silent partition, then runs the first tick after it heals once", async (ctx) => {
    let calls = 0;
    const { proxy, workers, direct } = await twoWorkers(ctx, async () => ((calls += 1), { status: "ok" }));
    workers.forEach((w) => w.fire(at(0)));
    await until(async () => (await runs(direct)).length === 1, 8_000);
    proxy.partition();
    for (const second of [1, 2]) workers.forEach((w) => w.fire(at(second)));
    await until(() => workers.every((w) => outageLines(w).length === 1), 4 * TIMEOUT_MS + 4_000);
    proxy.heal();
    // What was held in the cut flows on once it heals: let it settle before the next tick.
    await new Promise((resolve) => setTimeout(resolve, 3 * TIMEOUT_MS));
    workers.forEach((w) => w.fire(at(3)));
    await until(async () => (await runs(direct)).some((run) => run.startsWith("3 ")), 8_000);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const stored = await runs(direct);
    ctx.expect(stored.filter((run) => run.endsWith(" ok"))).toEqual([...new Set(stored.filter((run) => run.endsWith(" ok")))]);
    ctx.expect(stored).toContain("0 ok");
    ctx.expect(stored).toContain("3 ok");
    ctx.expect(calls).toBe(stored.filter((run) => run.endsWith(" ok")).length);
    for (const w of workers) ctx.expect(outageLines(w), w.logs.join("\n")).toHaveLength(1);
  });
});
