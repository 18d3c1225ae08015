// The durable steering inbox of a session, `<session file name>.inbox` (never listed as a session): `addSteer` appends
// steer lines, a turn takes them and appends a delivered mark. Writes hold its lock for milliseconds, reads none. Exactly
// once: a steer handed out again after a crash is dropped by the loop, as the session's `steerIds` hold it.
import { randomUUID } from "node:crypto";
import { mkdir, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import * as z from "zod";
import { systemClock, type Clock } from "../deps.js";
import { ifMissing, orFallback, SessionError } from "../errors.js";
import { syncFolder, writeFileAtomic } from "../fs/atomic-write.js";
import { withFileLock } from "../fs/file-lock.js";
import { readRegularFileSync, appendLines } from "../fs/regular-file.js";
import { sessionLockOptions } from "./backend.js";
import { sessionFileName } from "./session-path.js";

/** Longest steering text `addSteer` accepts, in UTF-8 bytes. */
export const MAX_STEER_BYTES = 100 * 1024;
/** Delivered steers kept in a file that still has waiting ones before it is rewritten without them. */
export const COMPACT_DELIVERED_BYTES = 64 * 1024;
/** Longest wait for another writer of the inbox (each holds it for milliseconds). */
const LOCK_TIMEOUT_MS = 10_000;

/** A steering message as the inbox hands it over; fits the loop's `SteerMessage`. */
export type InboxMessage = { id: string; text: string };

/** Options of `SessionInbox`: `onWarning` is told once per damaged line, which is skipped. */
export type SessionInboxOptions = { onWarning?: (message: string) => void };

/** The inbox file of `key` in `sessionsDir`. Throws SessionError for an invalid key. */
export function inboxPath(sessionsDir: string, key: string): string {
  return join(sessionsDir, sessionFileName(key) + ".inbox");
}

/** Resolves to the steer's id once on disk; safe across processes. Throws SessionError: blank text, over MAX_STEER_BYTES, bad key, failed write. */
export async function addSteer(sessionsDir: string, key: string, text: string, clock: Clock = systemClock): Promise<string> {
  const file = inboxPath(sessionsDir, key);
  checkSteerText(key, text);
  const id = randomUUID();
  const line = JSON.stringify({ type: "steer", id, ts: clock.now(), text }) + "\n";
  await withInboxLock(file, key, `cannot add to the steering inbox ${file}`, () => appendLine(file, line));
  return id;
}

/** Throws SessionError for a steering text that is empty (or blank) or over MAX_STEER_BYTES. */
export function checkSteerText(key: string, text: string): void {
  if (typeof text !== "string" || text.trim() === "") throw new SessionError(`cannot steer session ${key}: the text is empty`);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_STEER_BYTES) throw new SessionError(`cannot steer session ${key}: the text is ${bytes} bytes, more than the ${MAX_STEER_BYTES} allowed`);
}

/** A session's inbox as a turn's `inbox` option; a new instance hands out again what was taken, never marked delivered (the loop drops repeats). */
export class SessionInbox {
  private readonly file: string;
  private readonly taken = new Set<string>();
  private readonly warned = new Set<string>();

  /** Throws SessionError for an invalid key. */
  constructor(sessionsDir: string, private readonly key: string, private readonly options: SessionInboxOptions = {}) {
    this.file = inboxPath(sessionsDir, key);
  }

  /** The steers waiting, in order: not delivered, not handed out by this instance; damaged lines skipped. Throws SessionError for an unreadable file. */
  async take(): Promise<InboxMessage[]> {
    const parsed = parseInbox(readInbox(this.file));
    for (const reason of parsed.damaged.filter((damage) => !this.warned.has(damage))) {
      this.warned.add(reason);
      this.options.onWarning?.(`${this.file}: skipped a damaged line: ${reason}`);
    }
    const waiting = parsed.steers.filter((steer) => !parsed.delivered.has(steer.id) && !this.taken.has(steer.id));
    for (const steer of waiting) this.taken.add(steer.id);
    return waiting.map(({ id, text }) => ({ id, text }));
  }

  /** Marks `ids` delivered, durably, for every instance in every process (unknown ids ignored). Throws SessionError. */
  async delivered(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const id of ids) this.taken.add(id);
    // Ids come from the file: once it is gone (everything delivered), there is nothing to mark.
    if (readInbox(this.file) === "") return;
    await withInboxLock(this.file, this.key, `cannot mark steering delivered in ${this.file}`, () => markDelivered(this.file, ids));
  }
}

/** Under the lock: the mark appended, or the file removed or rewritten when that leaves it smaller. */
async function markDelivered(file: string, ids: string[]): Promise<void> {
  const text = readInbox(file);
  const { steers, delivered } = parseInbox(text);
  const marked = ids.filter((id) => !delivered.has(id) && steers.some((steer) => steer.id === id));
  if (marked.length === 0) return;
  for (const id of marked) delivered.add(id);
  const waiting = steers.filter((steer) => !delivered.has(steer.id));
  if (waiting.length === 0) {
    await unlink(file).catch((error: unknown) => ifMissing(error, undefined));
    return syncFolder(dirname(file));
  }
  const waitingBytes = waiting.reduce((sum, steer) => sum + Buffer.byteLength(steer.line, "utf8") + 1, 0);
  if (Buffer.byteLength(text, "utf8") - waitingBytes > COMPACT_DELIVERED_BYTES) return writeFileAtomic(file, waiting.map((steer) => steer.line + "\n").join(""));
  await appendLine(file, JSON.stringify({ type: "delivered", ids: marked }) + "\n");
}

/** The whole lines of an inbox file (the text after the last newline is not yet a line): each steer with its line as written. */
function parseInbox(text: string): { steers: Array<InboxMessage & { line: string }>; delivered: Set<string>; damaged: string[] } {
  const result = { steers: [] as Array<InboxMessage & { line: string }>, delivered: new Set<string>(), damaged: [] as string[] };
  const seen = new Set<string>();
  text.split("\n").slice(0, -1).forEach((line, index) => {
    if (line.trim() === "") return;
    const parsed = inboxLine.safeParse(orFallback(() => JSON.parse(line) as unknown, undefined));
    if (parsed.data?.type === "steer") {
      if (!seen.has(parsed.data.id)) result.steers.push({ id: parsed.data.id, text: parsed.data.text, line });
      seen.add(parsed.data.id);
    } else if (parsed.data?.type === "delivered") {
      for (const id of parsed.data.ids) result.delivered.add(id);
    } else {
      result.damaged.push(`line ${index + 1} is neither a steer nor a delivered mark: ${line.slice(0, 80)}`);
    }
  });
  return result;
}

/** A line of the inbox; other fields (`ts`) are allowed and ignored. */
const inboxLine = z.discriminatedUnion("type", [
  z.object({ type: z.literal("steer"), id: z.string().min(1), text: z.string() }),
  z.object({ type: z.literal("delivered"), ids: z.array(z.string()) }),
]);

/** The inbox's text, "" when there is none. Synchronous: a turn looks before every request, and the file is small and almost always absent. */
function readInbox(file: string): string {
  try {
    return readRegularFileSync(file);
  } catch (error) {
    return ifMissing(error, "", (cause) => new SessionError(`cannot read the steering inbox ${file}: ${cause.message}`, { cause }));
  }
}

/** Appends one line, synced; the caller holds the lock, so a torn last line is a dead writer's and stays a damaged line of its own. */
async function appendLine(file: string, line: string): Promise<void> {
  if (await appendLines(file, line, { sync: true })) await syncFolder(dirname(file));
}

/** Runs `work` holding the inbox's lock (its folder made first); a failure is a SessionError, `what` said first unless it is one already. */
async function withInboxLock<T>(file: string, key: string, what: string, work: () => Promise<T>): Promise<T> {
  try {
    await mkdir(dirname(file), { recursive: true });
    return await withFileLock(`${file}.lock`, sessionLockOptions("inbox", key, LOCK_TIMEOUT_MS), work);
  } catch (error) {
    throw error instanceof SessionError ? error : new SessionError(`${what}: ${(error as Error).message}`, { cause: error });
  }
}
