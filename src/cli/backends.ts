// The CLI's one place that picks where sessions and cron live: PostgreSQL with --database-url or MINICLAW_DATABASE_URL, else the workspace's files;
// and `miniclaw db migrate`, which creates or updates miniclaw's tables (sessions, cron, pg-boss's) in that database.
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import type { CronBackend } from "../cron/index.js";
import type { Postgres } from "../postgres/index.js";
import { SessionStore, type SessionBackend, type SessionStoreOptions } from "../sessions/store.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";

/** Sessions the CLI opened, to hand to `openAssistant({ store })`; `close` closes them (and gives the database back), never throwing. */
export interface OpenedSessions {
  sessions: SessionBackend;
  close(): Promise<void>;
}

/** Cron's backend, the sessions its runs use, and whether every worker shares the jobs (a database: a pause is seen by all of them). */
export interface OpenedCron extends OpenedSessions {
  cron: CronBackend;
  shared: boolean;
}

/** `command` over `opened`, closed after however the command ended. */
export async function closing<T extends { close(): Promise<void> }, R>(opened: T, command: (opened: T) => Promise<R>): Promise<R> {
  try {
    return await command(opened);
  } finally {
    await opened.close();
  }
}

type SessionsOptions = Pick<SessionStoreOptions, "clock" | "onWarning">;

/** The sessions of a command: PostgreSQL (`pg` loaded only then) when `--database-url` or MINICLAW_DATABASE_URL names one, else `<workspace>/sessions`. ConfigError for a bad or unusable database. */
export async function openSessions(args: Pick<CliArgs, "databaseUrl">, io: Pick<CliIo, "env">, workspace: string, options: SessionsOptions = {}): Promise<OpenedSessions & { postgres?: Postgres }> {
  const postgres = await openDatabaseOf(args, io, options);
  const sessions = postgres?.sessions ?? new SessionStore(join(workspace, "sessions"), options);
  return { sessions, close: () => (postgres ?? sessions).close(), ...(postgres && { postgres }) };
}

/** Cron's backend for `workspace`, chosen as `openSessions` chooses, with the sessions its runs go on. */
export async function openCron(args: Pick<CliArgs, "databaseUrl">, io: Pick<CliIo, "env">, workspace: string, options: SessionsOptions = {}): Promise<OpenedCron> {
  const { postgres, ...opened } = await openSessions(args, io, workspace, options);
  return { ...opened, cron: postgres?.cron ?? (await import("../cron/index.js")).fileCron(workspace), shared: postgres !== undefined };
}

/** The database of `--database-url` or MINICLAW_DATABASE_URL, or undefined when none is configured. */
async function openDatabaseOf(args: Pick<CliArgs, "databaseUrl">, io: Pick<CliIo, "env">, options: SessionsOptions = {}): Promise<Postgres | undefined> {
  const url = args.databaseUrl ?? io.env["MINICLAW_DATABASE_URL"];
  if (url === undefined || url.trim() === "") return undefined;
  const { openPostgres, resolveDatabaseConfig } = await import("../postgres/index.js");
  // The environment is read here, by the CLI, and only here: the postgres module is told which database.
  const config = resolveDatabaseConfig(args.databaseUrl, io.env)!;
  return openPostgres(config, options);
}

const DB_USAGE = "usage: miniclaw db migrate [--database-url URL] (or MINICLAW_DATABASE_URL)";

/** Runs `db migrate`; resolves to the exit code. Throws ConfigError without a database or for another word. */
export async function dbCommand(args: CliArgs, io: CliIo): Promise<number> {
  if (args.words.length !== 1 || args.words[0] !== "migrate") throw new ConfigError(DB_USAGE);
  const postgres = await openDatabaseOf(args, io);
  if (!postgres) throw new ConfigError(`no database: set MINICLAW_DATABASE_URL or pass --database-url (${DB_USAGE})`);
  return closing(postgres, async ({ schema }) => {
    const { found, version, bossFound } = await postgres.migrate();
    const ours = found === 0 ? `created the tables of schema ${schema} (version ${version})` : found < version ? `updated schema ${schema} from version ${found} to ${version}` : `found the tables of schema ${schema} at version ${version}: up to date`;
    io.stdout.write(`${ours}; ${bossFound ? "found" : "created"} pg-boss's in ${schema}_boss\n`);
    return 0;
  });
}
