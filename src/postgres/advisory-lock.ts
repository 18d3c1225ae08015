// The one holder of advisory locks, for a session's turn and a cron job's run alike: each lock on a turn connection of its own, watched while held.
//
// A session-level advisory lock lives as long as its connection: the server frees the locks of a dead process at once, of a
// vanished host within about 25 s (keepalives, database.ts), and of a connection gone silent (a partition keepalives cannot
// see) within twice the database timeout (idle_session_timeout, kept off a live holder by the heartbeat). So each held lock keeps a connection until release, its holder
// writes through it (a commit there proves the lock was still held), and a connection error or an unanswered heartbeat marks
// the lock lost. Waiters of this process queue in memory (fs/lock-queue.ts), never on a connection.
import { systemClock } from "../deps.js";
import { enterQueue } from "../fs/lock-queue.js";
import { describeDatabaseError, isConnectionLost, type Database, type PoolClient, type Queryable } from "./database.js";
import { transact } from "./transaction.js";

/**
 * While a lock is held and its connection idle, the connection is asked `SELECT 1` this often (at most; half the database
 * timeout when shorter), and given up as lost when no answer comes within the timeout. The beat also keeps the server from
 * ending the connection as idle (`idle_session_timeout`, twice the timeout: database.ts).
 */
const HEARTBEAT_MS = 5_000;

/** A held advisory lock. */
export interface AdvisoryLock {
  /** Aborts (with the reason) when the connection is lost or stops answering: the lock is gone, or soon will be. */
  readonly lost: AbortSignal;
  /** The lock's connection: each statement throws LockLostError, unsent, once the lock is lost, and a connection error loses it. */
  readonly client: Queryable;
  /** `fn` in a transaction on the lock's connection: its commit proves the lock was held to the end. */
  transaction<T>(fn: (client: Queryable) => Promise<T>): Promise<T>;
  /** Frees the lock and its connection. Idempotent; never throws. */
  release(): Promise<void>;
}

/**
 * Takes the advisory lock of `subject`; `waitMs` 0 tries once, more waits in this process's queue, then on the server.
 * Resolves to the lock, or who holds it. Throws when no turn connection frees up in time, or what the server says.
 */
export async function takeAdvisoryLock(database: Database, subject: string, waitMs: number): Promise<AdvisoryLock | { busy: "this process" | "elsewhere" }> {
  const started = Date.now();
  const deadline = started + waitMs;
  const leaveQueue = await enterQueue(`pg:${database.schema}:${subject}`, deadline, systemClock, () => new Error("busy")).catch(() => undefined);
  if (!leaveQueue) return { busy: "this process" };
  try {
    const timeoutMs = database.config.timeoutMs;
    const attempt = async (): Promise<[PoolClient, boolean]> => {
      const client = await connect(database, started, waitMs > 0 ? deadline : started + timeoutMs);
      const taken = await lockOn(client, database.lockKey(subject), deadline, timeoutMs).catch((error: unknown) => {
        client.release(true);
        throw error;
      });
      return [client, taken];
    };
    // A pooled connection the server had already ended (a restart, a terminated backend) fails at once: once more, on another.
    const [client, held] = await attempt().catch((error: unknown) => (isConnectionLost(error) ? attempt() : Promise.reject(error)));
    if (held) return watch(client, database.lockKey(subject), leaveQueue, timeoutMs);
    client.release();
    leaveQueue();
    return { busy: "elsewhere" };
  } catch (error) {
    leaveQueue();
    throw error;
  }
}

/** The condition on pg_locks `l` of the granted advisory lock whose key is `key` (a bigint expression), in this database. */
const heldLock = (key: string): string => `l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND ((l.classid::bigint << 32) | l.objid::bigint) = ${key}`;

/** SQL true while any connection to this database holds the advisory lock of `key` (a bigint expression). */
export function lockHeldSql(key: string): string {
  return `EXISTS (SELECT 1 FROM pg_locks l WHERE ${heldLock(key)})`;
}

/** Who holds the advisory lock of `subject`, from the server's own tables: its connection's application name (`miniclaw pid N on HOST`). */
export async function describeLockHolder(database: Database, subject: string): Promise<string> {
  const sql = `SELECT a.application_name AS name, a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE ${heldLock("$1::bigint")} LIMIT 1`;
  const { rows } = await database.pool.query<{ name: string; pid: number }>(sql, [database.lockKey(subject)]).catch(() => ({ rows: [] }));
  return rows[0] ? `${rows[0].name || "another client"} (server process ${rows[0].pid})` : "another process";
}

/** A connection of the turns pool by `deadline`; all of them in use is said as such. */
async function connect(database: Database, started: number, deadline: number): Promise<PoolClient> {
  const connecting = database.turns.connect();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()), undefined)));
  const client = await Promise.race([connecting, late]).finally(() => clearTimeout(timer));
  if (client) return client;
  connecting.then((c) => c.release(), () => undefined);
  throw new Error(`all ${database.config.turnConnections} turn connections of this process are in use (raise the database option's turnConnections) (waited ${Date.now() - started} ms)`);
}

/** Tries the lock on `client`, then waits for it on the server until `deadline`; false when another holds it then. */
async function lockOn(client: PoolClient, key: string, deadline: number, timeoutMs: number): Promise<boolean> {
  const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [key]);
  if (rows[0]?.ok) return true;
  const left = Math.round(deadline - Date.now());
  if (left <= 0) return false;
  try {
    await client.query(`SET lock_timeout = ${left}`);
    // The server gives up at lock_timeout; the driver's own limit (read by the driver, missing from its types) only guards against a server that never answers.
    await client.query({ text: "SELECT pg_advisory_lock($1::bigint)", values: [key], query_timeout: left + timeoutMs } as { text: string; values: string[] });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "55P03") return false;
    throw error;
  } finally {
    await client.query("RESET lock_timeout").catch(() => undefined);
  }
}

/** The lock held on `client`: watched by its error event and a heartbeat while idle, released once. */
function watch(client: PoolClient, key: string, leaveQueue: () => void, timeoutMs: number): AdvisoryLock {
  const lost = new AbortController();
  let busy = 0;
  let released = false;
  const lose = (reason: unknown): void => {
    if (!lost.signal.aborted) lost.abort(reason);
    clearInterval(heartbeat);
  };
  client.on("error", lose);
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (lost.signal.aborted || released) throw new LockLostError(lost.signal.reason ?? new Error("the lock was released"));
    busy += 1;
    try {
      return await fn();
    } catch (error) {
      if (isConnectionLost(error)) lose(error);
      throw error;
    } finally {
      busy -= 1;
    }
  };
  const heartbeat = setInterval(() => {
    // A statement in flight has its own timeout; a beat queued behind it would only measure its length.
    if (busy > 0) return;
    const timer = setTimeout(() => lose(new Error(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
    void guarded(() => client.query("SELECT 1")).then(() => clearTimeout(timer), (error: unknown) => (clearTimeout(timer), lose(error)));
  }, Math.min(HEARTBEAT_MS, timeoutMs / 2)).unref();
  const query = ((...args: Parameters<PoolClient["query"]>) => guarded(() => (client.query as (...a: unknown[]) => Promise<unknown>)(...args))) as Queryable["query"];
  return {
    lost: lost.signal,
    client: { query },
    transaction: (fn) => guarded(() => transact(client, fn, () => lose(new Error("a rollback failed")))),
    async release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      const unlocked = !lost.signal.aborted && (await client.query("SELECT pg_advisory_unlock($1::bigint)", [key]).then(() => true, () => false));
      // The listener stays on a destroyed client: it may still report its end.
      if (unlocked) client.off("error", lose);
      client.release(!unlocked);
      leaveQueue();
    },
  };
}

/** Thrown by a statement asked of a lock's connection once the lock is lost. */
export class LockLostError extends Error {
  constructor(reason: unknown) {
    super(`the connection holding the lock was lost (${describeDatabaseError(reason)})`);
  }
}
