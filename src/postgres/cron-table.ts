// The run log and the pauses in PostgreSQL (cron_runs, cron_pauses): the CronStore every worker of a schema shares.
import type { Database, Queryable } from "./database.js";
import type { RunRecord } from "../cron/cron-runs.js";
import type { CronStore, JobPause } from "../cron/cron-store.js";

/** How this process names itself in cron_runs.worker and cron_ticks.claimed_by: its connections' application name, `miniclaw pid N on HOST`. */
export function workerName(database: Database): string {
  return database.pool.options.application_name ?? `miniclaw pid ${process.pid}`;
}

/**
 * The database store: records in `cron_runs` (the record JSON as runs.jsonl holds it, its tick,
 * attempt and worker beside it), pauses in `cron_pauses`, so every worker sees a pause at its next
 * tick and `cron run --force` anywhere resumes the job everywhere. Queries go through the short pool.
 */
export function databaseCronStore(database: Database): CronStore {
  const worker = workerName(database);
  const runs = database.table("cron_runs");
  const pauses = database.table("cron_pauses");
  return {
    runsPlace: `the cron_runs table of schema ${database.schema}`,
    runsName: "cron_runs",
    appendRun: (record) => insertRunRecord(database, database.pool, record, { worker }),
    async readRuns(job, limit) {
      const { rows } = await database.pool.query<{ record: RunRecord }>(
        `SELECT record FROM (SELECT id, record FROM ${runs} WHERE $1::text IS NULL OR job = $1 ORDER BY id DESC LIMIT $2) latest ORDER BY id`,
        [job ?? null, limit],
      );
      return rows.map((row) => row.record);
    },
    async readPauses() {
      const { rows } = await database.pool.query<{ job: string; since: Date; reason: string }>(`SELECT job, since, reason FROM ${pauses}`);
      return Object.fromEntries(rows.map((row): [string, JobPause] => [row.job, { since: row.since.toISOString(), reason: row.reason }]));
    },
    async setPause(job, pause) {
      if (pause) await upsertPause(database, database.pool, job, pause);
      else await database.pool.query(`DELETE FROM ${pauses} WHERE job = $1`, [job]);
    },
  };
}

/** What a run record is filed under besides its own fields (the database keeps them as columns; files drop them). */
export interface RunPlace {
  /** The scheduled time the run belongs to; absent for `cron run`. */
  tick?: Date;
  /** 1, or 2 for the retry of a run whose worker died. */
  attempt?: number;
}

/** Inserts one record into cron_runs through `q` (a pool, or a client inside the caller's transaction). */
export async function insertRunRecord(database: Database, q: Queryable, record: RunRecord, place: RunPlace & { worker: string }): Promise<void> {
  await q.query(`INSERT INTO ${database.table("cron_runs")} (job, tick, attempt, worker, start_at, status, record) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    record.job,
    place.tick ?? null,
    place.attempt ?? 1,
    place.worker,
    record.start,
    record.status,
    JSON.stringify(record),
  ]);
}

/** Stores `job`'s pause through `q`, replacing an older one. */
export async function upsertPause(database: Database, q: Queryable, job: string, pause: JobPause): Promise<void> {
  await q.query(`INSERT INTO ${database.table("cron_pauses")} (job, since, reason) VALUES ($1, $2, $3) ON CONFLICT (job) DO UPDATE SET since = EXCLUDED.since, reason = EXCLUDED.reason`, [
    job,
    pause.since,
    pause.reason,
  ]);
}

/** Whether cron_runs has a record of `job`'s run for `tick`, attempt `attempt` (read through `q`). */
export async function hasRunRecord(database: Database, q: Queryable, job: string, tick: Date, attempt: number): Promise<boolean> {
  const { rows } = await q.query(`SELECT 1 FROM ${database.table("cron_runs")} WHERE job = $1 AND tick = $2 AND attempt = $3 LIMIT 1`, [job, tick, attempt]);
  return rows.length > 0;
}
