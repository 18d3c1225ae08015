// The durable steering inbox of a session on PostgreSQL: a row per waiting message, deleted once delivered.
import { randomUUID } from "node:crypto";
import { systemClock, type Clock } from "../deps.js";
import { SessionError } from "../errors.js";
import { describeDatabaseError, type Database } from "./database.js";
import { checkSteerText, type InboxMessage } from "../sessions/inbox.js";

/**
 * Adds a steering message for session `key` and resolves to its id once the row is committed;
 * any process on any host may add, and the turn holding the session (wherever it runs) takes it.
 * Throws SessionError for empty or oversized text, or when the database cannot be written.
 */
export async function addPgSteer(database: Database, key: string, text: string, clock: Clock = systemClock): Promise<string> {
  checkSteerText(key, text);
  const id = randomUUID();
  await database.pool.query(`INSERT INTO ${database.table("session_inbox")} (session_key, id, ts, text) VALUES ($1, $2, $3, $4)`, [key, id, clock.now(), text]).catch((error: unknown) => {
    throw new SessionError(`cannot add to the steering inbox of ${key}: ${describeDatabaseError(error)}`, { cause: error });
  });
  return id;
}

/**
 * The inbox of one session as a turn's `inbox` option, as `SessionInbox` is for files: `take`
 * hands each waiting message once per instance, in the order added; `delivered` deletes them, so
 * no instance anywhere takes them again. A crash between the session record and `delivered`
 * hands them once more to the next turn, which drops what the session already holds.
 */
export class PgInbox {
  private readonly taken = new Set<string>();

  constructor(
    private readonly database: Database,
    private readonly key: string,
  ) {}

  async take(): Promise<InboxMessage[]> {
    const { rows } = await this.database.pool
      .query<InboxMessage>(`SELECT id, text FROM ${this.database.table("session_inbox")} WHERE session_key = $1 ORDER BY seq`, [this.key])
      .catch((error: unknown) => {
        throw new SessionError(`cannot read the steering inbox of ${this.key}: ${describeDatabaseError(error)}`, { cause: error });
      });
    const fresh = rows.filter((row) => !this.taken.has(row.id));
    for (const row of fresh) this.taken.add(row.id);
    return fresh.map((row) => ({ id: row.id, text: row.text }));
  }

  async delivered(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const id of ids) this.taken.add(id);
    await this.database.pool.query(`DELETE FROM ${this.database.table("session_inbox")} WHERE session_key = $1 AND id = ANY($2::text[])`, [this.key, ids]).catch((error: unknown) => {
      throw new SessionError(`cannot mark steering delivered for ${this.key}: ${describeDatabaseError(error)}`, { cause: error });
    });
  }
}
