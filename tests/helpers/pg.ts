// PostgreSQL for tests: the server from MINICLAW_TEST_DATABASE_URL, a fresh schema per test (dropped after), and the one-line skip.
import { randomBytes } from "node:crypto";
import pg from "pg";

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
