// PostgreSQL for tests: the server from MINICLAW_TEST_DATABASE_URL, a fresh schema per test (dropped after), and the one-line skip.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { resolveDatabaseConfig, type DatabaseConfig } from "../../src/postgres/config.js";
import { openDatabase, type Database } from "../../src/postgres/database.js";

/** The test server: MINICLAW_TEST_DATABASE_URL, default the local trust-auth one. */
export const TEST_DATABASE_URL = process.env["MINICLAW_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/**
 * Why the PostgreSQL tests cannot run here, or undefined when the server answers. With
 * MINICLAW_REQUIRE_DATABASE=1 (CI sets it) an unreachable server throws instead: the skip becomes a failure.
 */
export async function databaseUnavailable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3_000 });
  let reason: string | undefined;
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    reason = `no PostgreSQL at ${TEST_DATABASE_URL} (${(error as Error).message || (error as { code?: string }).code}); set MINICLAW_TEST_DATABASE_URL`;
  } finally {
    await client.end().catch(() => undefined);
  }
  if (reason && process.env["MINICLAW_REQUIRE_DATABASE"] === "1") throw new Error(`MINICLAW_REQUIRE_DATABASE=1 but ${reason}`);
  if (reason) console.log(`skipped: PostgreSQL tests: ${reason}`);
  return reason;
}

/** A schema of its own for one test: a random name, and `drop()` removing it and pg-boss's beside it. */
export interface TestSchema {
  url: string;
  schema: string;
  drop(): Promise<void>;
}

/** Names a fresh schema (created by the code under test on first use); `drop` removes it and `<schema>_boss`. */
export function newTestSchema(): TestSchema {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  return {
    url: TEST_DATABASE_URL,
    schema,
    async drop() {
      await withTestClient((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_boss" CASCADE`));
    },
  };
}

/** A fresh schema opened as miniclaw opens a database (migrated); `close` gives the database back and drops the schema. */
export interface TestDatabase {
  schema: TestSchema;
  database: Database;
  close(): Promise<void>;
}

/** Opens a new schema of the test server with `openDatabase` (pool sizes from `extra`). */
export async function openTestDatabase(extra: Omit<DatabaseConfig, "url" | "schema"> = {}): Promise<TestDatabase> {
  const schema = newTestSchema();
  const database = await openDatabase(resolveDatabaseConfig({ url: schema.url, schema: schema.schema, ...extra }, {})!);
  return {
    schema,
    database,
    async close() {
      await database.close();
      await schema.drop();
    },
  };
}

/** Runs `fn` with a plain client of the test server, closed after. */
export async function withTestClient<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}
