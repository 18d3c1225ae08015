// The session tables: one row per session (its fencing epoch and next sequence number), one row per record in order.
import type { Migration } from "./migrations.js";

/**
 * `session_inbox` holds steering messages not yet delivered (a delivered one is deleted).
 * `sessions.epoch` grows each time a process takes a session's lock; an append names the epoch it
 * was given and writes nothing when it has moved on (the fence). `next_seq` numbers the records.
 * `session_records.record` is `json`, not `jsonb`: the text is kept as written, so a reload sends
 * the model the same bytes (its prompt cache depends on them) and an export is the file's line.
 */
export const SESSION_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions",
    sql: (s) => `
      CREATE TABLE ${s}.sessions (
        key text PRIMARY KEY,
        epoch bigint NOT NULL DEFAULT 0,
        next_seq bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.session_records (
        session_key text NOT NULL REFERENCES ${s}.sessions (key) ON DELETE CASCADE,
        seq bigint NOT NULL,
        id text,
        type text NOT NULL,
        record json NOT NULL,
        PRIMARY KEY (session_key, seq)
      );
      CREATE INDEX session_records_compactions ON ${s}.session_records (session_key, seq) WHERE type = 'compaction';
      CREATE INDEX session_records_ids ON ${s}.session_records (session_key, id);
      CREATE TABLE ${s}.session_inbox (
        seq bigserial PRIMARY KEY,
        session_key text NOT NULL,
        id text NOT NULL UNIQUE,
        ts bigint NOT NULL,
        text text NOT NULL
      );
      CREATE INDEX session_inbox_key ON ${s}.session_inbox (session_key, seq);`,
  },
];
