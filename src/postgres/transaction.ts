// A checked-out connection with its 'error' event heard for the whole checkout, and a transaction on one.
import type { Database, PoolClient, Queryable } from "./database.js";

/** What a checkout gives `fn` besides its client. */
export interface Checkout {
  /** Aborts when the connection is lost while checked out (its error event): the query in flight fails, the process goes on. */
  lost: AbortSignal;
  /** Destroys the client at release instead of returning it to its pool (its state is unknown). */
  discard(): void;
}

/**
 * Runs `fn` on a client of `pool` (either pool of a database), released after however `fn` ends.
 * A connection lost while checked out emits 'error' on the client, which would end the process
 * unheard: a listener is attached at checkout and removed at release, and such a client is destroyed.
 */
export async function withConnection<T>(pool: Database["pool"], fn: (client: PoolClient, checkout: Checkout) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const lost = new AbortController();
  let broken = false;
  const onError = (error: Error): void => {
    broken = true;
    lost.abort(error);
  };
  client.on("error", onError);
  try {
    return await fn(client, { lost: lost.signal, discard: () => void (broken = true) });
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
}

/**
 * Runs `fn` in a transaction on a client of the short pool: commits when it resolves, rolls back
 * when it throws (and rethrows). A client that is lost, or whose rollback fails, is destroyed.
 */
export async function inTransaction<T>(database: Database, fn: (client: Queryable) => Promise<T>): Promise<T> {
  return withConnection(database.pool, (client, { discard }) => transact(client, fn, discard));
}

/** `fn` between BEGIN and COMMIT on `client` (ROLLBACK when it throws; `onBroken` when even that fails). */
export async function transact<T>(client: Queryable, fn: (client: Queryable) => Promise<T>, onBroken: () => void = () => {}): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(onBroken);
    throw error;
  }
}
