// The durable steering inbox of a session on PostgreSQL: a row per waiting message, deleted once delivered.
import { randomUUID } from "node:crypto";
import type { Clock } from "../deps.js";
import type { Inbox } from "../types.js";
import { checkSteerText, type InboxMessage } from "../sessions/inbox.js";
import type { Database } from "./database.js";
import { querySessions } from "./pg-session-read.js";

/**
 * Adds a steering message for session `key` and resolves to its id once the row is committed; any process on any host may
 * add, and the turn holding the session (wherever it runs) takes it. Throws SessionError for empty or oversized text, or
 * when the database cannot be written.
 */
export async function addPgSteer(database: Database, key: string, text: string, clock: Clock): Promise<string> {
  checkSteerText(key, text);
  const id = randomUUID();
  const sql = `INSERT INTO ${database.table("session_inbox")} (session_key, id, ts, text) VALUES ($1, $2, $3, $4)`;
  await querySessions(database, `add to the steering inbox of ${key}`, (db) => db.query(sql, [key, id, clock.now(), text]));
  return id;
}

/**
 * The inbox of one session as a turn's `inbox` option, as `SessionInbox` is for files: `take` hands each waiting message once
 * per inbox, in the order added; `delivered` deletes them, so no inbox anywhere takes them again. A crash between the session
 * record and `delivered` hands them once more to the next turn, which drops what the session already holds.
 */
export function pgInbox(database: Database, key: string): Inbox {
  const taken = new Set<string>();
  const table = database.table("session_inbox");
  return {
    async take() {
      const sql = `SELECT id, text FROM ${table} WHERE session_key = $1 ORDER BY seq`;
      const { rows } = await querySessions(database, `read the steering inbox of ${key}`, (db) => db.query<InboxMessage>(sql, [key]));
      const fresh = rows.filter((row) => !taken.has(row.id));
      for (const row of fresh) taken.add(row.id);
      return fresh.map(({ id, text }) => ({ id, text }));
    },
    async delivered(ids) {
      if (ids.length === 0) return;
      for (const id of ids) taken.add(id);
      await querySessions(database, `mark steering delivered for ${key}`, (db) => db.query(`DELETE FROM ${table} WHERE session_key = $1 AND id = ANY($2::text[])`, [key, ids]));
    },
  };
}
