// `miniclaw db migrate`: creates or updates miniclaw's tables (sessions, cron, pg-boss's) in the configured database.
import { ConfigError } from "../errors.js";
import type { CliArgs } from "./args.js";
import { closing, openDatabaseOf } from "./backends.js";
import type { CliIo } from "./io.js";

const USAGE_LINE = "usage: miniclaw db migrate [--database-url URL] (or MINICLAW_DATABASE_URL)";

/** Runs `db migrate`; resolves to the exit code. Throws ConfigError without a database or for another word. */
export async function dbCommand(args: CliArgs, io: CliIo): Promise<number> {
  if (args.words.length !== 1 || args.words[0] !== "migrate") throw new ConfigError(USAGE_LINE);
  const postgres = await openDatabaseOf(args, io);
  if (!postgres) throw new ConfigError(`no database: set MINICLAW_DATABASE_URL or pass --database-url (${USAGE_LINE})`);
  return closing(postgres, async ({ schema }) => {
    const { found, version, bossFound } = await postgres.migrate();
    const ours = found === 0 ? `created the tables of schema ${schema} (version ${version})` : found < version ? `updated schema ${schema} from version ${found} to ${version}` : `found the tables of schema ${schema} at version ${version}: up to date`;
    io.stdout.write(`${ours}; ${bossFound ? "found" : "created"} pg-boss's in ${schema}_boss\n`);
    return 0;
  });
}
