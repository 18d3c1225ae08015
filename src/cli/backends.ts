// The CLI's one place that picks where sessions and cron live: PostgreSQL with --database-url or MINICLAW_DATABASE_URL, else the workspace's files.
import { join } from "node:path";
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
export async function openSessions(args: Pick<CliArgs, "databaseUrl">, io: Pick<CliIo, "env">, workspace: string, options: SessionsOptions = {}): Promise<OpenedSessions> {
  const postgres = await openDatabaseOf(args, io, options);
  const sessions = postgres?.sessions ?? new SessionStore(join(workspace, "sessions"), options);
  return { sessions, close: () => (postgres ?? sessions).close() };
}

/** Cron's backend for `workspace`, chosen as `openSessions` chooses, with the sessions its runs go on. */
export async function openCron(args: Pick<CliArgs, "databaseUrl">, io: Pick<CliIo, "env">, workspace: string, options: SessionsOptions = {}): Promise<OpenedCron> {
  const postgres = await openDatabaseOf(args, io, options);
  const sessions = postgres?.sessions ?? new SessionStore(join(workspace, "sessions"), options);
  const cron = postgres?.cron ?? (await import("../cron/index.js")).fileCron(workspace);
  return { cron, shared: postgres !== undefined, sessions, close: () => (postgres ?? sessions).close() };
}

/** `miniclaw db migrate`'s database, or undefined when none is configured. */
export async function openDatabaseOf(args: Pick<CliArgs, "databaseUrl">, io: Pick<CliIo, "env">, options: SessionsOptions = {}): Promise<Postgres | undefined> {
  const url = args.databaseUrl ?? io.env["MINICLAW_DATABASE_URL"];
  if (url === undefined || url.trim() === "") return undefined;
  const { openPostgres, resolveDatabaseConfig } = await import("../postgres/index.js");
  // The environment is read here, by the CLI, and only here: the postgres module is told which database.
  const config = resolveDatabaseConfig(args.databaseUrl, io.env)!;
  return openPostgres(config, options);
}
