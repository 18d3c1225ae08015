// Cron at scale on PostgreSQL: 100 jobs on a seconds schedule across 3 workers (in this process, each with pools of its own).
import { startScheduler, type CronJob, type Scheduler } from "../src/cron/index.js";
import { openPostgres, type Postgres } from "../src/postgres/index.js";
import { median, percentile, round } from "./stats.js";

export const CRON_JOBS = 100;
export const CRON_WORKERS = 3;
/** Every 10 s, not every minute: six times the ticks a minute, so a short window still holds many. */
export const CRON_EVERY_S = 10;

/** What cron at scale measured. */
export interface CronScale {
  jobs: number;
  workers: number;
  everySeconds: number;
  windowSeconds: number;
  /** Ticks claimed, runs that went, ticks run more than once (should be 0), ticks skipped (a run still going). */
  ticks: number;
  runs: number;
  duplicates: number;
  skipped: number;
  /** From each run's tick to its start. */
  startDelayMs: { medianMs: number; p95Ms: number };
  /** Runs each worker did. */
  perWorker: number[];
}

const jobs: CronJob[] = Array.from({ length: CRON_JOBS }, (_, i) => ({ name: `job${i}`, schedule: `*/${CRON_EVERY_S} * * * * *`, session: `cron:job${i}`, heartbeat: false, enabled: true, prompt: "go" }));

/** Runs the workers for `windowSeconds` (from the next whole ten seconds), stops them, and counts from the runs stored. */
export async function benchCronScale(url: string, schema: string, windowSeconds: number): Promise<CronScale> {
  const opened: Postgres[] = [];
  const schedulers: Scheduler[] = [];
  const delays: number[] = [];
  const perWorker = Array.from({ length: CRON_WORKERS }, () => 0);
  const lines: string[] = [];
  try {
    for (let w = 0; w < CRON_WORKERS; w++) {
      // Pool sizes apart: a database of its own per worker, as separate processes would have.
      const pg = await openPostgres({ url, schema, poolSize: 10 + w });
      opened.push(pg);
      const claims = await pg.cron.openClaims(jobs, { log: (line) => void lines.push(line), worker: `w${w}` });
      const runJob = async (): Promise<{ status: "ok" }> => {
        const now = Date.now();
        delays.push(now - Math.floor(now / (CRON_EVERY_S * 1000)) * CRON_EVERY_S * 1000);
        perWorker[w]! += 1;
        return { status: "ok" };
      };
      schedulers.push(startScheduler({ jobs, runJob, claims, log: (line) => void lines.push(line), onRecord: () => undefined }));
    }
    await new Promise((resolve) => setTimeout(resolve, windowSeconds * 1000));
    // The last tick's runs were claimed just now: let the workers take them before they stop (a stopped fleet leaves them queued).
    const stored = (sql: string) => opened[0]!.sessions.database.pool.query<{ n: string }>(sql).then((r) => Number(r.rows[0]?.n ?? 0));
    for (let waited = 0; waited < 20_000; waited += 250) {
      const [ticks, done] = await Promise.all([stored(`SELECT count(*) AS n FROM "${schema}".cron_ticks`), stored(`SELECT count(*) AS n FROM "${schema}".cron_runs`)]);
      if (done >= ticks) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    await Promise.all(schedulers.map((s) => s.stop(5_000)));
  }
  const pool = opened[0]!.sessions.database.pool;
  const count = async (sql: string): Promise<number> => Number((await pool.query<{ n: string }>(sql)).rows[0]?.n ?? 0);
  const t = (name: string): string => `"${schema}"."${name}"`;
  const result: CronScale = {
    jobs: CRON_JOBS,
    workers: CRON_WORKERS,
    everySeconds: CRON_EVERY_S,
    windowSeconds,
    ticks: await count(`SELECT count(*) AS n FROM ${t("cron_ticks")}`),
    runs: await count(`SELECT count(*) AS n FROM ${t("cron_runs")} WHERE status = 'ok'`),
    duplicates: await count(`SELECT count(*) AS n FROM (SELECT job, tick FROM ${t("cron_runs")} WHERE status = 'ok' GROUP BY job, tick HAVING count(*) > 1) d`),
    skipped: await count(`SELECT count(*) AS n FROM ${t("cron_runs")} WHERE status = 'skipped'`),
    startDelayMs: { medianMs: round(median(delays), 1), p95Ms: round(percentile(delays, 0.95), 1) },
    perWorker,
  };
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_boss" CASCADE`);
  await Promise.all(opened.map((pg) => pg.close()));
  if (lines.some((line) => /lost the database|error/i.test(line))) process.stderr.write(`cron scale: ${lines.join("\n")}\n`);
  return result;
}
