// pg-boss for cron on PostgreSQL: its schema (`<schema>_boss`), one queue per job, and the few calls the workers make. The only home of pg-boss.
import type PgBoss from "pg-boss";
import { messageOf } from "../errors.js";
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

/**
 * A run sent to a job's queue: the tick it runs for, its retry count (1 for the retry after a dead worker), when its last attempt
 * started (the database's clock; undefined before it ran), and since when it could be fetched (sent, or its dead worker's attempt failed).
 */
export type QueuedRun = { id: string; tick: Date; retryCount: number; startedOn: Date | undefined; availableSince: Date };

/** The pg-boss queue of `job`. */
const queueName = (job: string): string => `miniclaw.cron.${job}`;

/** The advisory lock subject of `job`'s run lock: whoever holds it alone fetches, runs or reaps the job's runs. */
export const runLock = (job: string): string => `cron-run:${job}`;

/** Creates or updates pg-boss's tables in `<schema>_boss` (`miniclaw db migrate`). Safe beside other processes doing the same: they take turns. */
export async function migrateCron(database: Database): Promise<void> {
  await stopBoss(await startBoss(database, { supervise: false, onError: () => {} }));
}

/** The pg-boss side of the workers (`openCronQueue`): sending runs, finding, fetching and finishing them. Calls throw what the server says. */
export type CronQueue = Awaited<ReturnType<typeof openCronQueue>>;

/** pg-boss for a worker of `jobs`, installed and its queues created, maintained until `stop`; background errors go to `log`, never end the process. */
export async function openCronQueue(database: Database, jobs: readonly string[], log: (line: string) => void) {
  const onError = (error: unknown): void => log(`cron: pg-boss: ${messageOf(error)}`);
  const boss = await startBoss(database, { supervise: true, onError, queues: jobs.map(queueName) });
  const jobTable = `"${database.schema}_boss".job`;
  return {
    /** Sends a run of `job` for `tick` inside the caller's open transaction on `client` (it commits or rolls back with it). */
    async send(client: Queryable, job: string, tick: Date): Promise<void> {
      const id = await boss.send(queueName(job), { tick: tick.toISOString() }, { ...QUEUE_OPTIONS, db: through(client) });
      if (id === null) throw new Error(`pg-boss did not take the run of ${job} (is its queue ${queueName(job)} created?)`);
    },
    /** Whether a run of `job` is waiting, retrying or going (on a worker, or by `cron run JOB`, which holds the run lock alone); in the caller's transaction. */
    async busy(client: Queryable, job: string): Promise<boolean> {
      const sql = `SELECT ${lockHeldSql("$2::bigint")} OR EXISTS (SELECT 1 FROM ${jobTable} WHERE name = $1 AND state < 'completed') AS busy`;
      return (await client.query<{ busy: boolean }>(sql, [queueName(job), database.lockKey(runLock(job))])).rows[0]?.busy === true;
    },
    /** Of `jobs`, those with a run waiting or active whose run lock no process holds: the ones a poller should lock. One query for all. */
    async withWork(jobs: readonly string[]): Promise<string[]> {
      const { rows } = await database.pool.query<{ name: string }>(
        `SELECT q.name FROM unnest($1::text[], $2::bigint[], $3::text[]) AS q(queue, key, name)
          WHERE EXISTS (SELECT 1 FROM ${jobTable} j WHERE j.name = q.queue AND j.state < 'completed' AND j.start_after < now()) AND NOT ${lockHeldSql("q.key")}`,
        [jobs.map(queueName), jobs.map((job) => database.lockKey(runLock(job))), jobs],
      );
      return rows.map((row) => row.name);
    },
    /** The active runs of `job`: only the holder of the job's run lock makes a run active, so to that holder these are orphans. */
    async active(job: string): Promise<QueuedRun[]> {
      const sql = `SELECT id, data, retry_count AS "retryCount", started_on AS "startedOn", start_after AS "startAfter" FROM ${jobTable} WHERE name = $1 AND state = 'active'`;
      return (await database.pool.query<BossRow>(sql, [queueName(job)])).rows.map(toQueuedRun);
    },
    /** Takes the next waiting run of `job` (made active) through `client` (the run lock's connection), or undefined. */
    async fetch(client: Queryable, job: string): Promise<QueuedRun | undefined> {
      const [row] = await boss.fetch(queueName(job), { includeMetadata: true, batchSize: 1, db: through(client) });
      return row && toQueuedRun(row);
    },
    /** Marks a run finished (its record says how it went), in the caller's transaction on `client`. */
    async complete(client: Queryable, job: string, id: string): Promise<void> {
      await boss.complete(queueName(job), id, {}, { db: through(client) });
    },
    /** Fails an orphaned run in the caller's transaction: it comes back for one retry, or, after its retry, is failed for good. */
    async failOrphan(client: Queryable, job: string, run: QueuedRun, message: string): Promise<void> {
      await boss.fail(queueName(job), run.id, { message }, { db: through(client) });
    },
    /** Stops pg-boss's maintenance and closes its connections; never throws. */
    stop: (): Promise<void> => stopBoss(boss),
  };
}

/** pg-boss's connection option over one of our clients, so its statement joins our transaction. */
function through(client: Queryable): PgBoss.Db {
  return { executeSql: (text, values) => client.query(text, values) };
}

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
  const connection = { connectionString: database.config.url, schema: `${database.schema}_boss`, max: BOSS_CONNECTIONS, application_name: "miniclaw cron (pg-boss)" };
  const boss = new PgBossClass({ ...connection, schedule: false, supervise: opts.supervise, maintenanceIntervalSeconds: MAINTENANCE_INTERVAL_SECONDS, migrate: true });
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
