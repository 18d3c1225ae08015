// The run locks of one process: every job's advisory run lock on ONE connection of the turns pool, watched by a heartbeat.
import { describeDatabaseError, isConnectionLost, type Database, type PoolClient, type Queryable } from "./database.js";
import { transact } from "./transaction.js";

/** While a run lock is held, its connection is asked `SELECT 1` this often... */
export const HEARTBEAT_MS = 5_000;
/**
 * ...and is given up as lost when no answer comes within this long: the runs are aborted well before
 * the server frees the locks of a silent client (its keepalives give up after about 25 s).
 */
export const HEARTBEAT_TIMEOUT_MS = 5_000;

/** A job's run lock, held: whoever holds it is the only process that may fetch, run or reap runs of the job. */
export interface RunLock {
  /**
   * Aborts when the connection holding the lock is lost or stops answering: the server frees (or
   * soon will free) the lock, and another worker may take the job over, so the run must stop.
   */
  readonly lost: AbortSignal;
  /** Runs `fn` with the lock's connection alone (statements of other jobs wait). Throws, without calling `fn`, once the lock is lost. */
  use<T>(fn: (client: Queryable) => Promise<T>): Promise<T>;
  /** `fn` in a transaction on the lock's connection: its commit proves the lock was held to the end. Throws once the lock is lost. */
  transaction<T>(fn: (client: Queryable) => Promise<T>): Promise<T>;
  /** Frees the lock (nothing when it was lost). Never throws. */
  release(): Promise<void>;
}

/** The SQL that is true when the run lock whose key is `key` (a bigint expression) is held by any session of this database. */
export function runLockHeldSql(key: string): string {
  return `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND ((l.classid::bigint << 32) | l.objid::bigint) = ${key})`;
}

/** The run lock key of `job`. */
export function runLockKey(database: Database, job: string): string {
  return database.lockKey(`cron-run:${job}`);
}

interface Connection {
  client: PoolClient;
  lost: AbortController;
  /** The tail of the statements queued on the connection: one at a time, a transaction whole. */
  tail: Promise<unknown>;
  heartbeat: NodeJS.Timeout;
}

/**
 * The run locks of a process (a worker, or `cron run`). Session advisory locks stack on one session,
 * so all of them live on one connection of the turns pool, taken at the first lock and kept until
 * `close`: a worker running many jobs uses one connection for its locks, not one per run. When that
 * connection is lost, every lock on it is lost at once (each lock's `lost` aborts); the next `tryLock`
 * opens another. `log` gets one line per lost connection.
 */
export class RunLocks {
  private connection: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  /** The jobs whose lock this process holds, or is taking, and the connection it is on (undefined while taking). */
  private readonly held = new Map<string, Connection | undefined>();

  constructor(
    private readonly database: Database,
    private readonly log: (line: string) => void,
  ) {}

  /** Takes `job`'s run lock if no process (this one included) holds it; undefined at once otherwise. Throws what the server says. */
  async tryLock(job: string): Promise<RunLock | undefined> {
    if (this.held.has(job)) return undefined;
    this.held.set(job, undefined);
    try {
      const connection = await this.connect();
      const key = runLockKey(this.database, job);
      const locked = await this.exclusive(connection, async (client) => (await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1::bigint) AS ok", [key])).rows[0]?.ok);
      if (!locked) {
        this.held.delete(job);
        return undefined;
      }
      this.held.set(job, connection);
      return this.lockOn(connection, job, key);
    } catch (error) {
      this.held.delete(job);
      throw error;
    }
  }

  /** Frees the connection (and with it any lock still held). Never throws. */
  async close(): Promise<void> {
    const connection = this.connection ?? (await this.connecting?.catch(() => undefined));
    if (connection) this.drop(connection, undefined);
  }

  private lockOn(connection: Connection, job: string, key: string): RunLock {
    let released = false;
    const use = <T>(fn: (client: Queryable) => Promise<T>): Promise<T> => this.exclusive(connection, fn);
    return {
      lost: connection.lost.signal,
      use,
      transaction: (fn) => use((client) => transact(client, fn, () => this.drop(connection, new Error("a rollback failed")))),
      release: async () => {
        if (released) return;
        released = true;
        if (this.held.get(job) === connection) this.held.delete(job);
        await use((client) => client.query("SELECT pg_advisory_unlock($1::bigint)", [key])).catch(() => undefined);
      },
    };
  }

  private connect(): Promise<Connection> {
    if (this.connection) return Promise.resolve(this.connection);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<Connection> {
    const client = await this.database.turns.connect();
    const lost = new AbortController();
    const connection: Connection = { client, lost, tail: Promise.resolve(), heartbeat: setInterval(() => this.beat(connection), HEARTBEAT_MS) };
    connection.heartbeat.unref();
    client.on("error", (error) => this.drop(connection, error));
    this.connection = connection;
    return connection;
  }

  /** `fn` on the connection once the statements queued before it are done; a connection error loses the connection. */
  private exclusive<T>(connection: Connection, fn: (client: Queryable) => Promise<T>): Promise<T> {
    const run = async (): Promise<T> => {
      if (connection.lost.signal.aborted) throw new RunLocksLostError(connection.lost.signal.reason);
      try {
        return await fn(connection.client);
      } catch (error) {
        if (isLostConnection(error)) this.drop(connection, error);
        throw error;
      }
    };
    const result = connection.tail.then(run, run);
    connection.tail = result.catch(() => undefined);
    return result;
  }

  /** One heartbeat while a lock is held: no answer within HEARTBEAT_TIMEOUT_MS loses the connection. */
  private beat(connection: Connection): void {
    if (!this.holdsOn(connection) || connection.lost.signal.aborted) return;
    const timer = setTimeout(() => this.drop(connection, new Error(`the database did not answer within ${HEARTBEAT_TIMEOUT_MS} ms`)), HEARTBEAT_TIMEOUT_MS);
    void this.exclusive(connection, (client) => client.query("SELECT 1"))
      .catch((error: unknown) => this.drop(connection, error))
      .finally(() => clearTimeout(timer));
  }

  private holdsOn(connection: Connection): boolean {
    return [...this.held.values()].includes(connection);
  }

  /** Gives the connection up: its locks are lost (their signals abort with `reason`), the client destroyed. `reason` undefined: a close. */
  private drop(connection: Connection, reason: unknown): void {
    if (this.connection === connection) this.connection = undefined;
    if (connection.lost.signal.aborted) return;
    clearInterval(connection.heartbeat);
    connection.lost.abort(reason ?? new Error("the run locks were closed"));
    if (reason !== undefined && this.holdsOn(connection)) this.log(`cron: lost the connection holding the run locks (${describeDatabaseError(reason)}); the runs going on here are aborted`);
    for (const [job, on] of this.held) if (on === connection) this.held.delete(job);
    // The listener stays: a destroyed client may still report its end.
    connection.client.on("error", () => undefined);
    connection.client.release(true);
  }
}

/**
 * Whether a statement's error means the connection itself is gone or stuck (terminated, reset, timed
 * out), as opposed to the server refusing one statement or a caller's own throw, after which it is fine.
 */
export function isLostConnection(error: unknown): boolean {
  return isConnectionLost(error) || error instanceof RunLocksLostError;
}

/** Thrown by a statement asked of the run locks' connection after it was lost. */
class RunLocksLostError extends Error {
  constructor(reason: unknown) {
    super(`the connection holding the run locks was lost (${describeDatabaseError(reason)})`);
  }
}
