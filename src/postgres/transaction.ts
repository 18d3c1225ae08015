// A transaction on a client of the short pool, or on a connection the caller holds.
import type { Database, Queryable } from "./database.js";

/**
 * `fn` in a transaction on a client of the short pool; rethrows after the rollback. A lost connection emits 'error', which
 * would end the process unheard: a listener catches it, and a lost or unrollbackable client is destroyed, not returned.
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
