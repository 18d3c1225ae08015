// Benchmark of sessions on PostgreSQL next to the file store: one append into a held session, the load of a 10,000-record session, turns/s of 4 processes.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { redactUrl, resolveDatabaseConfig } from "../src/postgres/config.js";
import { openDatabase } from "../src/postgres/database.js";
import { PgSessionStore } from "../src/postgres/pg-store.js";
import type { SessionRecord } from "../src/sessions/records.js";
import { SessionStore, type SessionBackend } from "../src/sessions/store.js";
import { benchSession, benchTurn, compactionKeeping, seededRandom, type BenchTurn } from "./records.js";
import { median, percentile, round, timeInterleaved } from "./stats.js";
import { benchTurnsPg, type TurnsPgBench } from "./turns-pg.js";

/** The server benched: MINICLAW_TEST_DATABASE_URL, as for the tests, else the local trust-auth one. Never MINICLAW_DATABASE_URL: a user's own database is not a bench. */
const BENCH_DATABASE_URL = process.env["MINICLAW_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
/** The loaded session has at least this many records (whole turns: a few more). */
export const LOAD_RECORDS = 10_000;
const KEPT_TURNS = 20;
const WRITE_BATCH = 250;
const WARMUP_LOADS = 1;
/** Timed loads of each session and backend; the median is reported. */
export const TIMED_LOADS = 7;
const WARMUP_APPENDS = 20;
/** Timed appends of each backend. */
export const TIMED_APPENDS = 240;

/** Median and 95th percentile, in milliseconds. */
export interface Latency {
  medianMs: number;
  p95Ms: number;
}

/** Everything measured when a server answered. */
export interface SessionsPgMeasured {
  /** The server, password hidden. */
  url: string;
  appends: number;
  /** One tool-result record (1–8 KB) appended to a held session; PostgreSQL commits are fsynced by the server, files are not unless asked. */
  appendMs: { postgres: Latency; files: Latency; filesFsync: Latency };
  /** Records of the never-compacted session (header included), and its size as a file. */
  loadRecords: number;
  loadFileMb: number;
  loadMs: { postgres: number; files: number };
  /** The same session with a compaction keeping its last turns: the records a load returns. */
  compactedKeptRecords: number;
  loadCompactedMs: { postgres: number; files: number };
  turns: TurnsPgBench;
}

/** Nothing measured: `skipped` says so for the table ("no PostgreSQL at URL"), `reason` says why. */
export interface SessionsPgSkipped {
  skipped: string;
  reason: string;
}

/** What `benchSessionsPg` measures, or why it did not. */
export type SessionsPgBench = SessionsPgSkipped | SessionsPgMeasured;

/** The three stores compared: PostgreSQL, files, files with fsync after each append. */
interface Stores {
  postgres: PgSessionStore;
  files: SessionStore;
  filesFsync: SessionStore;
}

/** Why the server cannot be benched (the driver's message), or undefined when it answers. */
async function unreachable(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return (error as Error).message || String((error as { code?: string }).code);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_boss" CASCADE`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Writes `records` into `key` under its lock, in batches (the header comes first, from the store). */
async function fill(store: SessionBackend, key: string, records: SessionRecord[]): Promise<void> {
  const release = await store.lock(key);
  try {
    for (let i = 0; i < records.length; i += WRITE_BATCH) await store.append(key, records.slice(i, i + WRITE_BATCH));
  } finally {
    await release();
  }
}

/** Appends one tool-result record at a time to a session each store holds, the stores taking turns; warm-up appends untimed. */
async function timeAppends(stores: Stores): Promise<SessionsPgMeasured["appendMs"]> {
  const names = Object.keys(stores) as Array<keyof Stores>;
  const key = (name: keyof Stores): string => `agent:main:bench-append-${name}`;
  const releases = await Promise.all(names.map((name) => stores[name].lock(key(name))));
  const times = { postgres: [] as number[], files: [] as number[], filesFsync: [] as number[] };
  try {
    const next = seededRandom(7);
    for (let i = 0; i < WARMUP_APPENDS + TIMED_APPENDS; i++) {
      const record = benchTurn(next, 100_000 + i, Date.now()).records[2]!;
      for (const name of names) {
        const started = performance.now();
        await stores[name].append(key(name), [record]);
        if (i >= WARMUP_APPENDS) times[name].push(performance.now() - started);
      }
    }
  } finally {
    await Promise.all(releases.map((release) => release()));
  }
  const latency = (values: number[]): Latency => ({ medianMs: round(median(values), 3), p95Ms: round(percentile(values, 0.95), 3) });
  return { postgres: latency(times.postgres), files: latency(times.files), filesFsync: latency(times.filesFsync) };
}

/** Median load of `key` from PostgreSQL and from files, interleaved; both must return the same messages, without warnings. */
async function timeLoads(stores: Stores, key: string): Promise<{ postgres: number; files: number; records: number }> {
  const [fromPg, fromFiles] = [await stores.postgres.load(key), await stores.files.load(key)];
  if (JSON.stringify(fromPg.messages) !== JSON.stringify(fromFiles.messages) || fromPg.warnings.length + fromFiles.warnings.length > 0) {
    throw new Error(`${key} loads differently: ${fromPg.messages.length} messages from PostgreSQL, ${fromFiles.messages.length} from files; ${[...fromPg.warnings, ...fromFiles.warnings].join("; ")}`);
  }
  const times = await timeInterleaved({ postgres: () => stores.postgres.load(key), files: () => stores.files.load(key) }, { warmup: WARMUP_LOADS, runs: TIMED_LOADS });
  return { postgres: round(median(times.postgres), 1), files: round(median(times.files), 1), records: fromPg.records.length };
}

/** The whole and the compacted session written to both backends; loads timed. */
async function benchLoads(stores: Stores): Promise<Pick<SessionsPgMeasured, "loadRecords" | "loadFileMb" | "loadMs" | "compactedKeptRecords" | "loadCompactedMs">> {
  const turns: BenchTurn[] = benchSession(LOAD_RECORDS - 1, 11);
  const records = turns.flatMap((turn) => turn.records);
  const compacted = [...records, compactionKeeping(turns, KEPT_TURNS)];
  for (const store of [stores.postgres, stores.files]) {
    await fill(store, "agent:main:bench-whole", records);
    await fill(store, "agent:main:bench-compacted", compacted);
  }
  const whole = await timeLoads(stores, "agent:main:bench-whole");
  const kept = await timeLoads(stores, "agent:main:bench-compacted");
  const bytes = (await stat(stores.files.fileFor("agent:main:bench-whole"))).size;
  return {
    loadRecords: records.length + 1,
    loadFileMb: round(bytes / 2 ** 20, 1),
    loadMs: { postgres: whole.postgres, files: whole.files },
    compactedKeptRecords: kept.records,
    loadCompactedMs: { postgres: kept.postgres, files: kept.files },
  };
}

/**
 * Sessions on PostgreSQL next to files, in a schema of its own (dropped after) and a temp folder:
 * the median and p95 of appending one record to a held session (240 appends after 20 untimed, the
 * backends taking turns; files also with fsync, as the server's commit is durable); the median load
 * of a 10,000-record session, never compacted and then compacted near its end (7 loads after one,
 * interleaved); turns/s of 4 processes on 4 sessions (bench/turns-pg.ts). When no server answers at
 * MINICLAW_TEST_DATABASE_URL (default the local one), says so on stderr and measures nothing.
 */
export async function benchSessionsPg(): Promise<SessionsPgBench> {
  const url = BENCH_DATABASE_URL;
  const reason = await unreachable(url);
  if (reason !== undefined) {
    const skipped = `no PostgreSQL at ${redactUrl(url)}`;
    process.stderr.write(`\nbench: sessions on PostgreSQL skipped: ${skipped} (${reason}); set MINICLAW_TEST_DATABASE_URL\n`);
    return { skipped, reason };
  }
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  const dir = await mkdtemp(join(tmpdir(), "miniclaw-bench-sessions-pg-"));
  const database = await openDatabase(resolveDatabaseConfig({ url, schema }, {})!);
  try {
    const stores: Stores = { postgres: new PgSessionStore(database), files: new SessionStore(dir), filesFsync: new SessionStore(dir, { fsync: true }) };
    const appendMs = await timeAppends(stores);
    const loads = await benchLoads(stores);
    const turns = await benchTurnsPg({ url, schema, store: stores.postgres }, (workspace) => new SessionStore(join(workspace, "sessions")));
    return { url: redactUrl(url), appends: TIMED_APPENDS, appendMs, ...loads, turns };
  } finally {
    await database.close();
    await dropSchema(url, schema);
    await rm(dir, { recursive: true, force: true });
  }
}
