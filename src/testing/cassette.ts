// Cassettes: a run's requests and responses as JSONL, read back whole, and compared request by request with what a replay sends.
import { readFileSync } from "node:fs";
import { isRecord } from "./conversation.js";

/** The cassette format this miniclaw writes and reads. */
export const CASSETTE_VERSION = 1;

/** The first line: the format, when, and the command line that made it (`miniclaw replay` runs it again). */
export interface CassetteHeader {
  cassette: number;
  created: string;
  argv?: string[];
}

/** One model request and what came back: the status, a few headers and the body as sent (JSON, or the SSE stream as text), or the transport's error. */
export interface Exchange {
  request: { path: string; body: unknown };
  response: { status: number; headers: Record<string, string>; body: string } | { error: string };
}

/** One turn: what the user sent and where, then the exchanges it made, in the order they were sent. */
export interface CassetteTurn {
  text: string;
  sessionKey?: string;
  /** Settings of this turn alone (the REPL's /effort). */
  options?: Record<string, unknown>;
  /** A cron job's run: the job, and the time it ran (a replay runs the job again as of then). */
  job?: string;
  at?: string;
  exchanges: Exchange[];
}

/** A whole cassette: its header, the records of each session a turn went on with (the first turn's, or each cron job's), and its turns. */
export interface Cassette {
  header: CassetteHeader;
  sessions: Array<{ key: string; records: unknown[] }>;
  turns: CassetteTurn[];
}

/** Reads a cassette from a file or its text. Throws a one-line Error for a file that is no cassette or of a later format. */
export function readCassette(source: string, label = "the cassette"): Cassette {
  const text = source.includes("\n") || source.startsWith("{") ? source : readFileSync(source, "utf8");
  const where = source.includes("\n") || source.startsWith("{") ? label : source;
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const parsed = lines.map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`${where}: line ${index + 1} is not JSON`);
    }
  });
  const header = parsed[0] as CassetteHeader | undefined;
  if (typeof header?.cassette !== "number") throw new Error(`${where}: not a miniclaw cassette (its first line names no "cassette" format)`);
  if (header.cassette > CASSETTE_VERSION) throw new Error(`${where} needs cassette format ${header.cassette}; this miniclaw reads format ${CASSETTE_VERSION}: update miniclaw`);
  const cassette: Cassette = { header, sessions: [], turns: [] };
  for (const line of parsed.slice(1)) {
    if ("session" in line) cassette.sessions.push(line["session"] as Cassette["sessions"][number]);
    else if ("turn" in line) cassette.turns.push({ ...(line["turn"] as Omit<CassetteTurn, "exchanges">), exchanges: [] });
    else if ("request" in line) {
      if (cassette.turns.length === 0) cassette.turns.push({ text: "", exchanges: [] });
      cassette.turns.at(-1)!.exchanges.push(line as unknown as Exchange);
    }
  }
  return cassette;
}

/** What legitimately differs between a recording and a replay, made equal: the current time a turn is told. */
const VARIES: ReadonlyArray<[RegExp, string]> = [[/Current time: [^<]*/g, "Current time: (replayed)"]];

/** A request body as compared: strings with what varies replaced, and the top-level fields `tolerate` names left out. */
export function normalizeBody(body: unknown, tolerate: readonly string[] = [], clean: (text: string) => string = (text) => text): unknown {
  const normalized = cleanStrings(body, (value) => VARIES.reduce((text, [pattern, stable]) => text.replace(pattern, stable), clean(value))) as Record<string, unknown>;
  for (const field of tolerate) delete normalized[field];
  return normalized;
}

/** A JSON value with `clean` applied to every string in it. */
export function cleanStrings<T>(value: T, clean: (text: string) => string): T {
  if (typeof value === "string") return clean(value) as T;
  if (Array.isArray(value)) return value.map((item) => cleanStrings(item, clean)) as T;
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cleanStrings(inner, clean)])) as T;
}

/** The first place two JSON values differ, as `path: recorded …, now …`; undefined when they are equal. */
export function firstDifference(recorded: unknown, now: unknown, path = "request"): string | undefined {
  if (Object.is(recorded, now)) return undefined;
  if (Array.isArray(recorded) && Array.isArray(now)) {
    for (let i = 0; i < Math.min(recorded.length, now.length); i++) {
      const inner = firstDifference(recorded[i], now[i], `${path}[${i}]`);
      if (inner) return inner;
    }
    return recorded.length === now.length ? undefined : `${path}: recorded ${recorded.length} items, now ${now.length}`;
  }
  if (isRecord(recorded) && isRecord(now)) {
    for (const key of new Set([...Object.keys(recorded), ...Object.keys(now)])) {
      const inner = firstDifference(recorded[key], now[key], `${path}.${key}`);
      if (inner) return inner;
    }
    return undefined;
  }
  return `${path}: recorded ${shown(recorded)}, now ${shown(now)}`;
}

/** A value in a difference's line: JSON, its middle cut when long. */
function shown(value: unknown): string {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value);
  return json.length <= 160 ? json : `${json.slice(0, 100)} … ${json.slice(-40)}`;
}
