// The PostgreSQL load bench: turns/s against files for 1, 2 and 4 processes (200 sessions × 3 turns), a hot session, cron at scale.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { openPostgres, type Postgres } from "../src/postgres/index.js";
import { SessionStore, type SessionBackend } from "../src/sessions/store.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { benchCronScale, type CronScale } from "./pg-cron-scale.js";
import { runLoad, type LoadJob, type LoadRun } from "./pg-load-runs.js";
import { toolLoopRule, turnNumber } from "./scripts.js";
import { median, percentile, round } from "./stats.js";

/** Sessions of each scale run, turns per session (one tool round each), sessions in flight per process. */
export const LOAD_SESSIONS = 200;
export const LOAD_TURNS = 3;
export const LOAD_LANES = 4;
export const LOAD_PROCESSES = [1, 2, 4];
/** The hot session: turns queued on one key from this many processes, this many each. */
export const HOT_PROCESSES = 4;
export const HOT_TURNS_EACH = 5;

/** Median and 95th percentile of a list of times, in ms. */
export type Spread = { medianMs: number; p95Ms: number };
/** One backend at one process count. */
export type ScaleFigures = { turnsPerSecond: number; turnMs: Spread; peakConnections: number };
/** What the load bench measures. */
export interface PgLoadBench {
  scale: Array<{ processes: number; postgres: ScaleFigures; files: ScaleFigures; overheadMs: number }>;
  /** Records missing or out of place in any session after every run (both should be 0). */
  lostRecords: number;
  interleavings: number;
  hot: { turns: number; turnMs: Spread; waitMs: Spread; inOrder: boolean; lost: number };
  cron: CronScale;
  /** The documented pool sizes per process: short queries, turn connections, pg-boss's. */
  poolSizes: { pool: number; turns: number; boss: number };
}

const spread = (values: number[]): Spread => ({ medianMs: round(median(values), 1), p95Ms: round(percentile(values, 0.95), 1) });
const figures = (run: LoadRun, turns: number): ScaleFigures => ({ turnsPerSecond: round(turns / (run.windowMs / 1000), 1), turnMs: spread(run.turnMs), peakConnections: run.peakConnections });

/** Splits `keys` into `n` nearly equal parts. */
const split = (keys: string[], n: number): string[][] => Array.from({ length: n }, (_, i) => keys.filter((_, k) => k % n === i));

/**
 * Counts, over `keys`, turns not stored whole and in order: each turn must be its 4 messages ("<tag> turn <n>", the tool call,
 * its result, the answer) with n counting up per tag. Returns lost messages and interleavings (a turn's messages split by another's).
 */
export async function checkTurns(store: SessionBackend, keys: string[], expectedTurns: number): Promise<{ lost: number; interleavings: number; order: string[] }> {
  let lost = 0;
  let interleavings = 0;
  const order: string[] = [];
  for (const key of keys) {
    const { messages, records, warnings } = await store.load(key, { mode: "read" });
    lost += Math.max(0, expectedTurns * 4 - messages.length) + records.filter((r) => r.synthetic).length + warnings.length;
    for (let i = 0; i + 3 < messages.length; i += 4) {
      const opening = JSON.stringify(messages[i]!.content);
      const roles = messages.slice(i, i + 4).map((m) => m.role).join(",");
      const tag = /(\w+) turn (\d+)/.exec(opening)?.[0];
      if (roles !== "user,assistant,user,assistant" || !tag || !JSON.stringify(messages[i + 3]!.content).includes("done after 1 tool rounds")) interleavings += 1;
      order.push(tag ?? "?");
    }
  }
  return { lost, interleavings, order };
}

async function scaleRuns(model: ScriptedModel, root: string, url: string, schema: string, store: SessionBackend) {
  const scale: PgLoadBench["scale"] = [];
  let lostRecords = 0;
  let interleavings = 0;
  for (const processes of LOAD_PROCESSES) {
    const keys = Array.from({ length: LOAD_SESSIONS }, (_, i) => `agent:main:load-${processes}-${i}`);
    const jobs = (workspace: string, db: Partial<LoadJob>): LoadJob[] =>
      split(keys, processes).map((part, i) => ({ baseURL: model.baseURL, workspace, keys: part, turns: LOAD_TURNS, lanes: LOAD_LANES, tag: `p${i}`, ...db }));
    const workspace = join(root, `files-${processes}`);
    const files = await runLoad(jobs(workspace, {}));
    const postgres = await runLoad(jobs(root, { url, schema }), url);
    for (const backend of [new SessionStore(join(workspace, "sessions")), store]) {
      const checked = await checkTurns(backend, keys, LOAD_TURNS);
      lostRecords += checked.lost;
      interleavings += checked.interleavings;
    }
    const total = LOAD_SESSIONS * LOAD_TURNS;
    const [p, f] = [figures(postgres, total), figures(files, total)];
    scale.push({ processes, postgres: p, files: f, overheadMs: round(p.turnMs.medianMs - f.turnMs.medianMs, 1) });
  }
  return { scale, lostRecords, interleavings };
}

async function hotRun(model: ScriptedModel, root: string, url: string, schema: string, store: SessionBackend, soloMs: number): Promise<PgLoadBench["hot"]> {
  const key = "agent:main:hot";
  const jobs = Array.from({ length: HOT_PROCESSES }, (_, i): LoadJob => ({ baseURL: model.baseURL, workspace: root, url, schema, keys: [key], turns: HOT_TURNS_EACH, lanes: 1, tag: `h${i}` }));
  const run = await runLoad(jobs, url);
  const { lost, interleavings, order } = await checkTurns(store, [key], HOT_PROCESSES * HOT_TURNS_EACH);
  // Each process's turns in its own order: h0 turn 0 before h0 turn 1, and so on.
  const inOrder = interleavings === 0 && jobs.every((job) => order.filter((t) => t.startsWith(`${job.tag} `)).every((t, n) => t === `${job.tag} turn ${n}`));
  return { turns: order.length, turnMs: spread(run.turnMs), waitMs: spread(run.turnMs.map((ms) => Math.max(0, ms - soloMs))), inOrder, lost };
}

/**
 * Runs the load bench against `url` in a schema of its own (dropped after): the scale runs, the hot session, cron at scale.
 * Needs dist/ built (the children import it). Throws when the server does not answer.
 */
export async function benchPgLoad(url: string, cronSeconds: number): Promise<PgLoadBench> {
  const schema = `load_${randomBytes(5).toString("hex")}`;
  const model = await startScriptedModel([toolLoopRule(2, (req, round) => ({ name: "note", input: { text: `turn ${turnNumber(req)} round ${round}` } }))]);
  const root = await mkdtemp(join(tmpdir(), "miniclaw-bench-pg-load-"));
  let postgres: Postgres | undefined;
  try {
    postgres = await openPostgres({ url, schema });
    const { scale, lostRecords, interleavings } = await scaleRuns(model, root, url, schema, postgres.sessions);
    const hot = await hotRun(model, root, url, schema, postgres.sessions, scale[0]!.postgres.turnMs.medianMs);
    const cron = await benchCronScale(url, `${schema}_cron`, cronSeconds);
    if (model.rejected.length > 0) throw new Error(`the scripted model rejected ${model.rejected.length} requests: ${model.rejected[0]?.error ?? ""}`);
    return { scale, lostRecords, interleavings, hot, cron, poolSizes: { pool: 10, turns: 20, boss: 3 } };
  } finally {
    await postgres?.close();
    await model.close();
    await rm(root, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_boss" CASCADE`);
    await client.end();
  }
}
