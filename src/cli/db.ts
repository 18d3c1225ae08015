// `miniclaw db migrate`: creates or updates miniclaw's tables (sessions, cron, pg-boss's) in the configured database.
import { ConfigError } from "../errors.js";
import { resolveDatabaseConfig } from "../postgres/config.js";
import { openDatabase } from "../postgres/database.js";
import { MIGRATIONS } from "../postgres/migrations.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";

const USAGE_LINE = "usage: miniclaw db migrate [--database-url URL] (or MINICLAW_DATABASE_URL)";

/** Runs `db migrate`; resolves to the exit code. Throws ConfigError without a database or for another word. */
export async function dbCommand(args: CliArgs, io: CliIo): Promise<number> {
  if (args.words.length !== 1 || args.words[0] !== "migrate") throw new ConfigError(USAGE_LINE);
  const config = resolveDatabaseConfig(args.databaseUrl, io.env);
  if (!config) throw new ConfigError(`no database: set MINICLAW_DATABASE_URL or pass --database-url (${USAGE_LINE})`);
  const database = await openDatabase(config);
  try {
    const { migrateCron } = await import("../postgres/cron-pg.js");
    await migrateCron(database);
    const latest = MIGRATIONS.at(-1)?.version ?? 0;
    io.stdout.write(`schema ${config.schema} is at version ${latest} (pg-boss in ${config.schema}_boss)\n`);
    return 0;
  } finally {
    await database.close();
  }
}
