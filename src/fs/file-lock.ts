// A lock file shared across processes (plus an in-process queue), judged stale by whether its owner lives: the file
// names its pid, host and start time, so a lock never outlives its process and a slow holder is never robbed (mtime
// staleness, as in proper-lockfile, keeps a dead owner's lock until it expires and makes a live one keep touching it).
import { randomUUID } from "node:crypto";
import { statSync, unlinkSync, writeFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import type { Clock } from "../deps.js";
import { ifMissing, orFallback } from "../errors.js";
import { enterQueue } from "./lock-queue.js";
import { processExists, startedAfter } from "./proc.js";
import { readRegularFileSync } from "./regular-file.js";

/** What a lock file holds: its owner, when it was taken (ms since the epoch), and a token unique per acquisition, so a release never removes someone else's lock. */
export type LockOwner = { pid: number; hostname: string; ts: number; token: string };

/**
 * `clock` measures the wait (the system clock unless a test drives both sides); messages read "<label> busy: <subject> ..." and "cannot create the <label>
 * lock ...", an in-process holder named `inProcessHolder` (default "another caller"); `makeError` makes each error, so callers keep their error class.
 */
export interface FileLockOptions {
  timeoutMs: number;
  clock: Clock;
  label: string;
  subject: string;
  inProcessHolder?: string;
  makeError: (message: string, cause?: unknown) => Error;
}

// An ownerless lock file younger than UNREADABLE_GRACE_MS may still be being written; a takeover guard (held for
// microseconds) older than GUARD_STALE_MS was left by a crash; START_SLACK_MS covers clock granularity at a process's start.
const UNREADABLE_GRACE_MS = 500;
const GUARD_STALE_MS = 2_000;
const START_SLACK_MS = 2_000;
const POLL_MIN_MS = 5;
const POLL_MAX_MS = 100;

/** Lock files held by this process, by path: the token written into each. */
const held = new Map<string, string>();
/** Tokens this process has written or is about to: a lock of this pid holding one is alive, so another spelling of its path waits. */
const ownTokens = new Set<string>();
let exitHookInstalled = false;

/** True while this process holds the lock file at `lockPath`. */
export function isFileLockHeld(lockPath: string): boolean {
  return held.has(lockPath);
}

/**
 * Waits for the in-process queue, then the lock file, together at most `timeoutMs`; resolves to an idempotent release removing the file only if still ours.
 * A dead owner's lock on this host (or one unreadable for more than a moment) is taken over at once; an exit hook removes locks still held. Throws
 * `makeError`: "<label> busy: <subject> ..." naming the holder when the wait runs out, "cannot ... lock ..." when the file cannot be created or read.
 */
export async function acquireFileLock(lockPath: string, options: FileLockOptions): Promise<() => Promise<void>> {
  const deadline = options.clock.now() + options.timeoutMs;
  const inProcess = `is held by ${options.inProcessHolder ?? "another caller"} in this process`;
  const leaveQueue = await enterQueue(lockPath, deadline, options.clock, () => busy(options, inProcess));
  const token = randomUUID();
  ownTokens.add(token);
  try {
    await acquireFile(lockPath, token, deadline, options);
  } catch (error) {
    ownTokens.delete(token);
    leaveQueue();
    throw error;
  }
  held.set(lockPath, token);
  if (!exitHookInstalled) process.on("exit", () => held.forEach((token, lockPath) => removeIfOurs(lockPath, token)));
  exitHookInstalled = true;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    held.delete(lockPath);
    try {
      removeIfOurs(lockPath, token, options);
    } finally {
      ownTokens.delete(token);
      leaveQueue();
    }
  };
}

/** Runs `work` while holding `lockPath` (see `acquireFileLock`), and releases it however `work` ends. */
export async function withFileLock<T>(lockPath: string, options: FileLockOptions, work: () => Promise<T>): Promise<T> {
  const release = await acquireFileLock(lockPath, options);
  try {
    return await work();
  } finally {
    await release();
  }
}

async function acquireFile(lockPath: string, token: string, deadline: number, options: FileLockOptions): Promise<void> {
  const content = JSON.stringify({ pid: process.pid, hostname: hostname(), ts: options.clock.now(), token } satisfies LockOwner);
  for (let delay = POLL_MIN_MS; ; delay = Math.min(delay * 2, POLL_MAX_MS)) {
    if (tryCreate(lockPath, content, options)) return;
    const state = await inspect(lockPath, options);
    if (state.kind === "gone") continue;
    if (state.kind === "dead" && takeOver(lockPath, state.raw)) continue;
    const left = deadline - options.clock.now();
    if (left <= 0) throw busy(options, describe(state), lockPath);
    await options.clock.sleep(Math.min(left, delay * (0.5 + Math.random())));
  }
}

/** Creates the lock file exclusively. Lock files are created, read and removed synchronously: microseconds, where the thread pool costs ~0.3 ms. */
function tryCreate(lockPath: string, content: string, options: FileLockOptions): boolean {
  try {
    writeFileSync(lockPath, content, { flag: "wx" });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw options.makeError(`cannot create the ${options.label} lock ${lockPath}: ${(error as Error).message}`, error);
  }
}

type LockState = { kind: "gone" } | { kind: "dead"; raw: string } | { kind: "alive"; owner: LockOwner } | { kind: "unreadable" };

async function inspect(lockPath: string, options: FileLockOptions): Promise<LockState> {
  let raw: string;
  try {
    raw = readRegularFileSync(lockPath);
  } catch (error) {
    return ifMissing(error, { kind: "gone" }, (cause) => options.makeError(`cannot read the ${options.label} lock ${lockPath}: ${cause.message}`, cause));
  }
  const owner = parseOwner(raw);
  if (owner === undefined) {
    // mtime is wall-clock time, so it is compared with Date.now(), not the injected clock.
    const age = await stat(lockPath).then((s) => Date.now() - s.mtimeMs, () => 0);
    return age > UNREADABLE_GRACE_MS ? { kind: "dead", raw } : { kind: "unreadable" };
  }
  if (owner.hostname !== hostname()) return { kind: "alive", owner };
  if (owner.pid === process.pid) return ownTokens.has(owner.token) ? { kind: "alive", owner } : { kind: "dead", raw };
  return processExists(owner.pid) && !startedAfter(owner.pid, owner.ts + START_SLACK_MS) ? { kind: "alive", owner } : { kind: "dead", raw };
}

/** Removes a dead owner's lock under an exclusive takeover guard, and only if it still holds what was judged dead (never a lock just taken). */
function takeOver(lockPath: string, raw: string): boolean {
  const guard = `${lockPath}.takeover`;
  try {
    writeFileSync(guard, JSON.stringify({ pid: process.pid, hostname: hostname() }), { flag: "wx" });
  } catch {
    clearStaleGuard(guard);
    return false;
  }
  // Gone already, it fails: the caller simply tries to create it again.
  orFallback(() => readRegularFileSync(lockPath) === raw && unlinkSync(lockPath), undefined);
  orFallback(() => unlinkSync(guard), undefined);
  return true;
}

function clearStaleGuard(guard: string): void {
  try {
    const owner = parseOwner(readRegularFileSync(guard));
    const dead = owner !== undefined && owner.hostname === hostname() && owner.pid !== process.pid && !processExists(owner.pid);
    if (dead || Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS) unlinkSync(guard);
  } catch {
    // The guard vanished meanwhile, which is what we wanted.
  }
}

function removeIfOurs(lockPath: string, token: string, options?: FileLockOptions): void {
  try {
    if (parseOwner(readRegularFileSync(lockPath))?.token === token) unlinkSync(lockPath);
  } catch (error) {
    // At exit (no options) nothing more can be done, and the next caller takes a dead owner's lock over.
    if (options) ifMissing(error, undefined, (cause) => options.makeError(`cannot release the ${options.label} lock ${lockPath}: ${cause.message}`, cause));
  }
}

/** The owner a lock file names, or undefined for any other text (JSON `null` included). */
function parseOwner(raw: string): LockOwner | undefined {
  const { pid, hostname, ts, token } = orFallback(() => JSON.parse(raw) as Partial<LockOwner> | null, null) ?? {};
  return typeof pid === "number" && typeof hostname === "string" ? { pid, hostname, ts: Number(ts ?? 0), token: String(token ?? "") } : undefined;
}

function describe(state: LockState): string {
  if (state.kind !== "alive") return "is being locked by another process";
  const { owner } = state;
  const where = owner.hostname === hostname() ? "" : ` on ${owner.hostname}`;
  return `is locked by process ${owner.pid}${where} since ${new Date(owner.ts).toISOString()}`;
}

function busy(options: FileLockOptions, why: string, lockPath?: string): Error {
  const file = lockPath ? `; lock file ${lockPath}` : "";
  return options.makeError(`${options.label} busy: ${options.subject} ${why} (waited ${options.timeoutMs} ms${file})`);
}
