// The cron tables: the run log every worker writes and reads, stored pauses, and the claim of each tick (exactly one worker wins it).
import type { Migration } from "./migrations.js";

/**
 * `cron_runs.record` holds the run record as runs.jsonl would (the same fields); the columns beside
 * it are for queries: `tick` is the scheduled time the run belongs to (null for `cron run`), `attempt`
 * counts runs of one tick (2 when it was retried after its worker died), `worker` names the process.
 * `cron_ticks` has one row per (job, scheduled second): the worker whose insert wins runs that tick.
 */
export const CRON_MIGRATIONS: readonly Migration[] = [
  {
    version: 2,
    name: "cron",
    sql: (s) => `
      CREATE TABLE ${s}.cron_runs (
        id bigserial PRIMARY KEY,
        job text NOT NULL,
        tick timestamptz,
        attempt integer NOT NULL DEFAULT 1,
        worker text NOT NULL,
        start_at timestamptz NOT NULL,
        status text NOT NULL,
        record json NOT NULL
      );
      CREATE INDEX cron_runs_job ON ${s}.cron_runs (job, id);
      CREATE TABLE ${s}.cron_pauses (
        job text PRIMARY KEY,
        since timestamptz NOT NULL,
        reason text NOT NULL
      );
      CREATE TABLE ${s}.cron_ticks (
        job text NOT NULL,
        tick timestamptz NOT NULL,
        claimed_by text NOT NULL,
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (job, tick)
      );`,
  },
];
