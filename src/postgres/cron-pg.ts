// pg-boss for cron on PostgreSQL: its schema (`<schema>_boss`), one queue per job, and the few calls the workers make. The only home of pg-boss.
import type PgBoss from "pg-boss";
import { lockHeldSql } from "./advisory-lock.js";
import type { Database, Queryable } from "./database.js";
import { inTransaction } from "./transaction.js";

/** A run whose worker died is run once more (by another worker); a second death fails it for good. */
export const RETRY_LIMIT = 1;
// pg-boss's maintenance fails an active job older than `expireInSeconds` (its own dead-worker rule, 24 hours at most). Ours, the
// run lock, is faster, so this is as long as pg-boss allows: a run still going must never be failed under its worker and run again.
const QUEUE_OPTIONS = { retryLimit: RETRY_LIMIT, retryDelay: 0, expireInSeconds: 23 * 60 * 60 };
/** pg-boss's maintenance (expire, archive, drop): every five minutes, by one worker at a time. */
const MAINTENANCE_INTERVAL_SECONDS = 300;
/** pg-boss's own connections per process: fetch, complete, fail and maintenance are short. */
const BOSS_CONNECTIONS = 3;

/** A run sent to a job's queue, as the worker that fetched it (or found it orphaned) sees it. */
export interface QueuedRun {
  id: string;
  /** The scheduled time it runs for. */
  tick: Date;
  /** 0 for the first attempt, 1 for the retry after a dead worker. */
  retryCount: number;
  /** When its last attempt started (by the database's clock); undefined before it ever ran. */
  startedOn: Date | undefined;
  /** When it could first be fetched: when it was sent, or, for a retry, when its dead worker's attempt was failed. */
  availableSince: Date;
}

/** The pg-boss side of the workers: sending runs, finding, fetching and finishing them. Calls throw what the server says. */
export interface CronQueue {
  /** Sends a run of `job` for `tick` inside the caller's open transaction on `client` (it commits or rolls back with it). */
  send(client: Queryable, job: string, tick: Date): Promise<void>;
  /** True when a run of `job` is waiting, waiting for its retry, or active; read in the caller's transaction on `client`. */
  hasPending(client: Queryable, job: string): Promise<boolean>;
  /** Of `jobs` (names with their run lock keys), those with a run waiting or active whose run lock no process holds, in one query. */
  withWork(jobs: ReadonlyArray<{ name: string; lockKey: string }>): Promise<string[]>;
  /** The active runs of `job`: only the holder of the job's run lock makes a run active, so to that holder these are orphans. */
  active(job: string): Promise<QueuedRun[]>;
  /** Takes the next waiting run of `job` (made active) through `client` (the run lock's connection), or undefined. */
  fetch(client: Queryable, job: string): Promise<QueuedRun | undefined>;
  /** Marks a run finished (its record says how it went), in the caller's transaction on `client`. */
  complete(client: Queryable, job: string, id: string): Promise<void>;
  /** Fails an orphaned run in the caller's transaction: it comes back for one retry, or, after its retry, is failed for good. */
  failOrphan(client: Queryable, job: string, run: QueuedRun, message: string): Promise<void>;
  /** Stops pg-boss's maintenance and closes its connections; never throws. */
  stop(): Promise<void>;
}

/** The pg-boss queue of `job`. */
const queueName = (job: string): string => `miniclaw.cron.${job}`;

/** Creates or updates pg-boss's tables in `<schema>_boss` (`miniclaw db migrate`). Safe beside other processes doing the same: they take turns. */
export async function migrateCron(database: Database): Promise<void> {
  await stopBoss(await startBoss(database, { supervise: false, onError: () => {} }));
}

/**
 * pg-boss for a worker of `jobs`: installs its tables if needed, creates each job's queue, and keeps its maintenance running
 * until `stop`. `log` gets a line for each error pg-boss reports in the background (a lost connection); none ends the process.
 */
export async function openCronQueue(database: Database, jobs: readonly string[], log: (line: string) => void): Promise<CronQueue> {
  const onError = (error: unknown): void => log(`cron: pg-boss: ${error instanceof Error ? error.message : String(error)}`);
  const boss = await startBoss(database, { supervise: true, onError, queues: jobs.map(queueName) });
  const jobTable = `"${database.schema}_boss".job`;
  return {
    async send(client, job, tick) {
      const id = await boss.send(queueName(job), { tick: tick.toISOString() }, { ...QUEUE_OPTIONS, db: through(client) });
      if (id === null) throw new Error(`pg-boss did not take the run of ${job} (is its queue ${queueName(job)} created?)`);
    },
    async hasPending(client, job) {
      const { rows } = await client.query(`SELECT 1 FROM ${jobTable} WHERE name = $1 AND state < 'completed' LIMIT 1`, [queueName(job)]);
      return rows.length > 0;
    },
    async withWork(jobs) {
      const { rows } = await database.pool.query<{ name: string }>(
        `SELECT q.name FROM unnest($1::text[], $2::bigint[], $3::text[]) AS q(queue, key, name)
          WHERE EXISTS (SELECT 1 FROM ${jobTable} j WHERE j.name = q.queue AND j.state < 'completed' AND j.start_after < now()) AND NOT ${lockHeldSql("q.key")}`,
        [jobs.map((job) => queueName(job.name)), jobs.map((job) => job.lockKey), jobs.map((job) => job.name)],
      );
      return rows.map((row) => row.name);
    },
    async active(job) {
      const sql = `SELECT id, data, retry_count AS "retryCount", started_on AS "startedOn", start_after AS "startAfter" FROM ${jobTable} WHERE name = $1 AND state = 'active'`;
      return (await database.pool.query<BossRow>(sql, [queueName(job)])).rows.map(toQueuedRun);
    },
    async fetch(client, job) {
      const [row] = await boss.fetch(queueName(job), { includeMetadata: true, batchSize: 1, db: through(client) });
      return row && toQueuedRun(row);
    },
    async complete(client, job, id) {
      await boss.complete(queueName(job), id, {}, { db: through(client) });
    },
    async failOrphan(client, job, run, message) {
      await boss.fail(queueName(job), run.id, { message }, { db: through(client) });
    },
    stop: () => stopBoss(boss),
  };
}

/** pg-boss's connection option over one of our clients, so its statement joins our transaction. */
function through(client: Queryable): PgBoss.Db {
  return { executeSql: (text, values) => client.query(text, values) };
}

/** A row of pg-boss's job table, as its fetch gives it. */
type BossRow = { id: string; data: unknown; retryCount: number; startedOn: Date | null; startAfter: Date };

function toQueuedRun(row: BossRow): QueuedRun {
  const tick = new Date(String((row.data as { tick?: unknown } | null)?.tick));
  return { id: row.id, tick, retryCount: row.retryCount, startedOn: row.startedOn ?? undefined, availableSince: row.startAfter };
}

/**
 * A started pg-boss on its own small pool, schema `<schema>_boss`, with its cron timekeeper off (miniclaw's workers keep the
 * schedules). Its install and the queue creations run under an advisory lock of ours: pg-boss's own install is not safe
 * against a second process doing it at the same moment (the loser's connection is left in a failed transaction). The lock is
 * a transaction's, on a connection whose loss is heard (the start then fails, with pg-boss stopped).
 */
async function startBoss(database: Database, opts: { supervise: boolean; onError: (error: unknown) => void; queues?: string[] }): Promise<PgBoss> {
  const { default: PgBossClass } = await import("pg-boss");
  const boss = new PgBossClass({
    connectionString: database.config.url,
    schema: `${database.schema}_boss`,
    max: BOSS_CONNECTIONS,
    application_name: "miniclaw cron (pg-boss)",
    schedule: false,
    supervise: opts.supervise,
    maintenanceIntervalSeconds: MAINTENANCE_INTERVAL_SECONDS,
    migrate: true,
  });
  boss.on("error", opts.onError);
  try {
    await inTransaction(database, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [database.lockKey("pg-boss install")]);
      await boss.start();
      for (const queue of opts.queues ?? []) await boss.createQueue(queue, { name: queue, ...QUEUE_OPTIONS });
    });
  } catch (error) {
    await stopBoss(boss);
    throw error;
  }
  return boss;
}

/** Stops pg-boss without waiting on workers (it has none: runs are fetched by hand) and closes its pool. */
async function stopBoss(boss: PgBoss): Promise<void> {
  await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
}
