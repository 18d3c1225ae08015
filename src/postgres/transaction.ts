// A transaction on a client of the short pool, or on a connection the caller holds.
import type { Database, Queryable } from "./database.js";

/**
 * Runs `fn` in a transaction on a client of the short pool: commits when it resolves, rolls back when it throws (and rethrows).
 * A connection lost while checked out emits 'error' on the client, which would end the process unheard: a listener is attached
 * for the checkout, and a client that was lost, or whose rollback failed, is destroyed instead of returned to the pool.
 */
export async function inTransaction<T>(database: Database, fn: (client: Queryable) => Promise<T>): Promise<T> {
  const client = await database.pool.connect();
  let broken = false;
  const onError = (): void => void (broken = true);
  client.on("error", onError);
  try {
    return await transact(client, fn, onError);
  } finally {
    client.off("error", onError);
    client.release(broken);
  }
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
