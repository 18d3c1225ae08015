// Throwaway PostgreSQL servers for fault tests: initdb into a temp folder, start on a free port, kill, restart, refuse writes, back up.
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chown, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { closedPort } from "./ports.js";
import { tempDir } from "./temp-dir.js";

const run = promisify(execFile);

/** The folder of initdb and pg_ctl: MINICLAW_PG_BIN, else the newest /usr/lib/postgresql/N/bin, else undefined. */
export function postgresBin(): string | undefined {
  const given = process.env["MINICLAW_PG_BIN"];
  if (given) return existsSync(join(given, "initdb")) ? given : undefined;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a));
  return versions[0] && join(root, versions[0], "bin");
}

/**
 * Why throwaway clusters cannot be made here (no initdb), or undefined. Says so in one line; with MINICLAW_REQUIRE_DATABASE=1
 * (CI sets it) it throws instead, as `databaseUnavailable` does: the skip becomes a failure.
 */
export function clustersUnavailable(what: string): string | undefined {
  const reason = postgresBin() ? undefined : "no initdb (set MINICLAW_PG_BIN to PostgreSQL's bin folder)";
  if (reason && process.env["MINICLAW_REQUIRE_DATABASE"] === "1") throw new Error(`MINICLAW_REQUIRE_DATABASE=1 but ${reason}`);
  if (reason) console.log(`skipped: ${what}: ${reason}`);
  return reason;
}

/** A PostgreSQL server of a test's own. */
export interface Cluster {
  readonly port: number;
  readonly dir: string;
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  /** Starts the server (again); waits until it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`. */
  stop(): Promise<void>;
  /** SIGKILLs the postmaster and waits until its backends are gone too (the server is down). */
  kill(): Promise<void>;
  /** Sets default_transaction_read_only for new sessions and ends the existing ones, so every connection refuses writes. */
  setReadOnly(on: boolean): Promise<void>;
  /** One query on a connection of its own. */
  query<R = Record<string, unknown>>(sql: string, values?: unknown[]): Promise<R[]>;
  /** A base backup (pg_basebackup) of this server, started as a second server on a port of its own. */
  baseBackup(): Promise<Cluster>;
  /** Stops the server and removes its folder. Never throws. */
  destroy(): Promise<void>;
}

const asPostgres = (args: string[]): [string, string[]] => (process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", ...args]] : [args[0]!, args.slice(1)]);

async function tool(name: string, args: string[]): Promise<string> {
  const [command, argv] = asPostgres([join(postgresBin()!, name), ...args]);
  const { stdout } = await run(command, argv, { timeout: 60_000 });
  return stdout;
}

/** A temp folder for a cluster; when the tests run as root, owned by the postgres user the server tools then run as. */
async function clusterDir(): Promise<string> {
  const dir = await tempDir("miniclaw-pgc-");
  if (process.getuid?.() === 0) await chown(dir, Number((await run("id", ["-u", "postgres"])).stdout), Number((await run("id", ["-g", "postgres"])).stdout));
  return dir;
}

/** A fresh cluster (initdb, fsync off), started on a free port. */
export async function startCluster(): Promise<Cluster> {
  const dir = await clusterDir();
  await tool("initdb", ["-D", join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const cluster = clusterAt(dir, await closedPort());
  await cluster.start();
  return cluster;
}

function clusterAt(dir: string, port: number): Cluster {
  const data = join(dir, "data");
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=60`;
  const pidOf = async (): Promise<number | undefined> => Number((await readFile(join(data, "postmaster.pid"), "utf8").catch(() => "")).split("\n")[0]) || undefined;
  const cluster: Cluster = {
    port,
    dir,
    url,
    async start() {
      // After a SIGKILL the old backends may hold shared memory a moment longer: the new postmaster then refuses; try again.
      for (let attempt = 1; ; attempt++) {
        try {
          await tool("pg_ctl", ["-D", data, "-o", serverOptions, "-l", join(dir, "log"), "-w", "-t", "20", "start"]);
          return;
        } catch (error) {
          if (attempt >= 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    },
    async stop() {
      await tool("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
    },
    async kill() {
      const pid = await pidOf();
      if (pid === undefined) return;
      const children = (await run("pgrep", ["-P", String(pid)]).then((r) => r.stdout, () => "")).split("\n").filter(Boolean).map(Number);
      process.kill(pid, "SIGKILL");
      // Backends exit once they see their postmaster gone; a restart waits for them, so the test waits here.
      const alive = (p: number): boolean => {
        try {
          process.kill(p, 0);
          return true;
        } catch {
          return false;
        }
      };
      for (let i = 0; i < 200 && children.some(alive); i++) await new Promise((r) => setTimeout(r, 25));
    },
    async setReadOnly(on) {
      await cluster.query(`ALTER SYSTEM SET default_transaction_read_only = ${on ? "on" : "off"}`);
      await cluster.query("SELECT pg_reload_conf()");
      await cluster.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()");
    },
    async query<R>(sql: string, values: unknown[] = []) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows as R[];
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    async baseBackup() {
      const copy = await clusterDir();
      await tool("pg_basebackup", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-D", join(copy, "data"), "-X", "stream", "-c", "fast", "--no-sync"]);
      const second = clusterAt(copy, await closedPort());
      await second.start();
      return second;
    },
    async destroy() {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
  return cluster;
}
