// The durable steering inbox of a session: a JSONL file beside the session file where `addSteer` appends and a running turn takes.
//
// The file is `<session file name>.inbox` (`agent#main#main.jsonl.inbox`), named after the session
// file like its `.lock`; it does not end in `.jsonl`, so the session listing never takes it for a
// session. Its lines: `{"type":"steer","id","ts","text"}` and `{"type":"delivered","ids":[...]}`.
//
// Every write (`addSteer`, `delivered`) holds the inbox's lock file for milliseconds (fs/file-lock.ts).
// O_APPEND alone keeps concurrent appends whole, but the inbox also removes and rewrites its file,
// and a writer appending to a file just removed would lose its line: the lock makes that impossible.
// Reads take no lock: a line being written (no newline yet) is left for the next read.
//
// Clean-up, done by `delivered` under the lock: when no steer is left waiting, the file is removed;
// when delivered steers take more than COMPACT_DELIVERED_BYTES while some wait, the file is rewritten
// atomically with only the waiting ones. The file therefore never outgrows the messages not yet read.
//
// Exactly once: `take` never hands one id twice in one instance, and a delivered id never again; a
// crash between the session record and `delivered` hands it once more to the next process, and the
// loop drops it because the session's `steerIds` already hold it.
import { randomUUID } from "node:crypto";
import { mkdir, open, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { systemClock, type Clock } from "../deps.js";
import { SessionError } from "../errors.js";
import { syncFolder, writeFileAtomic } from "../fs/atomic-write.js";
import { withFileLock } from "../fs/file-lock.js";
import { sessionFileName } from "./session-path.js";
import { readRegularFileSync } from "../fs/regular-file.js";

/** Suffix added to the session file's name to name its inbox. */
export const INBOX_FILE_SUFFIX = ".inbox";
/** Longest steering text `addSteer` accepts, in UTF-8 bytes. */
export const MAX_STEER_BYTES = 100 * 1024;
/** Delivered steers kept in a file that still has waiting ones before it is rewritten without them. */
export const COMPACT_DELIVERED_BYTES = 64 * 1024;
/** Longest wait for another writer of the inbox (each holds it for milliseconds). */
const LOCK_TIMEOUT_MS = 10_000;

/** A steering message as the inbox hands it over; fits the loop's `SteerMessage`. */
export interface InboxMessage {
  id: string;
  text: string;
}

/** Options of `SessionInbox`. */
export interface SessionInboxOptions {
  /** Told once per damaged line, which is skipped. Default: silence. */
  onWarning?: (message: string) => void;
}

/** The inbox file of `key` in `sessionsDir`. Throws SessionError for an invalid key. */
export function inboxPath(sessionsDir: string, key: string): string {
  return join(sessionsDir, sessionFileName(key) + INBOX_FILE_SUFFIX);
}

/**
 * Adds a steering message to the inbox of session `key` and resolves to its id once the
 * line is on disk (fsynced). Safe with any number of writers in any number of processes.
 * Creates the sessions folder if needed. Throws SessionError for empty (or blank) text, text
 * over MAX_STEER_BYTES, an invalid key, or a file that cannot be written.
 */
export async function addSteer(sessionsDir: string, key: string, text: string, clock: Clock = systemClock): Promise<string> {
  const file = inboxPath(sessionsDir, key);
  checkSteerText(key, text);
  const id = randomUUID();
  const line = JSON.stringify({ type: "steer", id, ts: clock.now(), text }) + "\n";
  try {
    await mkdir(sessionsDir, { recursive: true });
    await withInboxLock(file, key, () => appendLine(file, line));
  } catch (error) {
    throw asSessionError(error, `cannot add to the steering inbox ${file}`);
  }
  return id;
}

/** Throws SessionError for a steering text that is empty (or blank) or over MAX_STEER_BYTES. */
export function checkSteerText(key: string, text: string): void {
  if (typeof text !== "string" || text.trim() === "") throw new SessionError(`cannot steer session ${key}: the text is empty`);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_STEER_BYTES) throw new SessionError(`cannot steer session ${key}: the text is ${bytes} bytes, more than the ${MAX_STEER_BYTES} allowed`);
}

/**
 * The inbox of one session as a turn's `inbox` option: `take` before each request, `delivered`
 * once the messages are stored in the session. It remembers the ids it handed out; a new
 * instance (the next process after a crash, or a later turn) hands out again what was taken
 * and never marked delivered, which the loop drops if the session already holds it. Instances
 * in other processes read the same file.
 */
export class SessionInbox {
  private readonly file: string;
  private readonly taken = new Set<string>();
  private readonly warned = new Set<string>();

  /** Throws SessionError for an invalid key. */
  constructor(
    sessionsDir: string,
    private readonly key: string,
    private readonly options: SessionInboxOptions = {},
  ) {
    this.file = inboxPath(sessionsDir, key);
  }

  /**
   * The steers waiting, in the order they were added: not delivered, and not handed out by
   * this instance before. A missing file is an empty inbox; a last line without its newline
   * (still being written, or torn by a crash) is left for later; a damaged line is skipped
   * (and reported once). Throws SessionError when the file exists but cannot be read.
   */
  async take(): Promise<InboxMessage[]> {
    const parsed = parseInbox(readInbox(this.file));
    this.warnOnce(parsed.damaged);
    const out: InboxMessage[] = [];
    for (const steer of parsed.steers) {
      if (parsed.delivered.has(steer.id) || this.taken.has(steer.id)) continue;
      this.taken.add(steer.id);
      out.push({ id: steer.id, text: steer.text });
    }
    return out;
  }

  /**
   * Marks `ids` delivered, durably (fsynced), so no instance in any process takes them
   * again; then removes the file when nothing waits, or rewrites it when delivered steers
   * have piled up (see the file's comment). Ids not in the inbox are ignored. Throws
   * SessionError when the file cannot be written or the lock not had in time.
   */
  async delivered(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const id of ids) this.taken.add(id);
    // Ids come from the file: once it is gone (everything delivered), there is nothing to mark.
    if (readInbox(this.file) === "") return;
    try {
      await withInboxLock(this.file, this.key, () => markDelivered(this.file, ids));
    } catch (error) {
      throw asSessionError(error, `cannot mark steering delivered in ${this.file}`);
    }
  }

  private warnOnce(damaged: string[]): void {
    for (const reason of damaged) {
      if (this.warned.has(reason)) continue;
      this.warned.add(reason);
      this.options.onWarning?.(`${this.file}: skipped a damaged line: ${reason}`);
    }
  }
}

/** Under the lock: the mark appended, or the file removed or rewritten when that leaves it smaller (see the file's comment). */
async function markDelivered(file: string, ids: string[]): Promise<void> {
  const text = readInbox(file);
  const { steers, delivered } = parseInbox(text);
  const marked = ids.filter((id) => !delivered.has(id) && steers.some((steer) => steer.id === id));
  if (marked.length === 0) return;
  for (const id of marked) delivered.add(id);
  const waiting = steers.filter((steer) => !delivered.has(steer.id));
  if (waiting.length === 0) return removeInbox(file);
  const waitingBytes = waiting.reduce((sum, steer) => sum + Buffer.byteLength(steer.line, "utf8") + 1, 0);
  if (Buffer.byteLength(text, "utf8") - waitingBytes > COMPACT_DELIVERED_BYTES) {
    return writeFileAtomic(file, waiting.map((steer) => steer.line + "\n").join(""));
  }
  await appendLine(file, JSON.stringify({ type: "delivered", ids: marked }) + "\n");
}

/** One steer line as read, with its text as written (kept whole when the file is rewritten). */
interface StoredSteer extends InboxMessage {
  line: string;
}

interface ParsedInbox {
  steers: StoredSteer[];
  delivered: Set<string>;
  /** One phrase per damaged line, naming it by its number. */
  damaged: string[];
}

/** Reads the whole lines of an inbox file (the text after the last newline is not yet a line). */
function parseInbox(text: string): ParsedInbox {
  const lines = text.split("\n").slice(0, -1);
  const seen = new Set<string>();
  const result: ParsedInbox = { steers: [], delivered: new Set(), damaged: [] };
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    const value = parseJson(line);
    if (isSteer(value)) {
      if (!seen.has(value.id)) result.steers.push({ id: value.id, text: value.text, line });
      seen.add(value.id);
    } else if (isDelivered(value)) {
      for (const id of value.ids) result.delivered.add(id);
    } else {
      result.damaged.push(`line ${index + 1} is neither a steer nor a delivered mark: ${line.slice(0, 80)}`);
    }
  });
  return result;
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

function isSteer(value: unknown): value is { id: string; text: string } {
  const v = value as Record<string, unknown> | undefined;
  return typeof v === "object" && v !== null && v["type"] === "steer" && typeof v["id"] === "string" && v["id"] !== "" && typeof v["text"] === "string";
}

function isDelivered(value: unknown): value is { ids: string[] } {
  const v = value as Record<string, unknown> | undefined;
  return typeof v === "object" && v !== null && v["type"] === "delivered" && Array.isArray(v["ids"]) && v["ids"].every((id) => typeof id === "string");
}

/**
 * The inbox's text, "" when there is none. Read synchronously: a turn looks before every request, the
 * file is small and almost always absent, and one `open` answers that without a trip through the
 * thread pool (a file added just after is seen next time).
 */
function readInbox(file: string): string {
  try {
    return readRegularFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw new SessionError(`cannot read the steering inbox ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Appends one line in one O_APPEND write and fsyncs it. A file that does not end with a
 * newline holds a line torn by a writer that died (none is alive: the caller holds the
 * lock), so a newline goes first and the torn part stays a damaged line of its own.
 */
async function appendLine(file: string, line: string): Promise<void> {
  const handle = await open(file, "a+");
  let created = false;
  try {
    const { size } = await handle.stat();
    created = size === 0;
    const last = Buffer.alloc(1);
    if (size > 0) await handle.read(last, 0, 1, size - 1);
    await handle.writeFile(size > 0 && last[0] !== 0x0a ? "\n" + line : line);
    await handle.sync();
  } finally {
    await handle.close();
  }
  if (created) await syncFolder(dirname(file));
}

async function removeInbox(file: string): Promise<void> {
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
  await syncFolder(dirname(file));
}

function asSessionError(error: unknown, what: string): SessionError {
  return error instanceof SessionError ? error : new SessionError(`${what}: ${(error as Error).message}`, { cause: error });
}

function withInboxLock<T>(file: string, key: string, work: () => Promise<T>): Promise<T> {
  const makeError = (message: string, cause?: unknown): Error => new SessionError(message, cause === undefined ? undefined : { cause });
  // Other processes write in real time, so the wait is measured on the system clock.
  return withFileLock(`${file}.lock`, { timeoutMs: LOCK_TIMEOUT_MS, clock: systemClock, label: "inbox", subject: key, makeError }, work);
}
