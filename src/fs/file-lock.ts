// A lock file shared across processes (plus an in-process queue), judged stale by whether its owner lives.
//
// The one lock policy of miniclaw: sessions (a turn can hold one for minutes) and the
// approvals file (held for milliseconds) use it alike.
//
// Why not proper-lockfile: it judges a lock stale by the age of its mtime, so a lock
// whose owner died stays in force until the stale period runs out (and a live owner
// in a long turn must keep touching it). Here staleness is whether the owner is
// alive: the lock file names its pid, host and start time, and a dead owner's lock
// (or one whose pid now belongs to a process started after it) is taken over at
// once. A lock can therefore never outlive its process, and a live one is never
// stolen because its holder is slow. For the approvals file's short critical section
// mtime staleness would also do, but one rule is simpler than two, and it needs no
// timeout before a crashed holder's lock is taken over.
import { randomUUID } from "node:crypto";
import { readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { hostname } from "node:os";
import type { Clock } from "../deps.js";
import { enterQueue } from "./lock-queue.js";
import { processExists, procStatFields } from "./proc.js";
import { readRegularFileSync } from "./regular-file.js";

/** What a lock file holds. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** When the lock was taken (ms since the epoch). */
  ts: number;
  /** Unique per acquisition, so a release never removes someone else's lock. */
  token: string;
}

/** Options of `acquireFileLock`. */
export interface FileLockOptions {
  timeoutMs: number;
  /** Measures the wait. Other processes live in real time: give the system clock unless a test drives both sides. */
  clock: Clock;
  /** What is locked, for messages: "session" gives "session busy: <subject> ..." and "cannot create the session lock ...". */
  label: string;
  /** Names the locked thing after "<label> busy:", such as a session key or a file. */
  subject: string;
  /** Who holds it when the holder is in this process ("another turn"); default "another caller". */
  inProcessHolder?: string;
  /** Makes every error the lock throws, so each caller keeps its own error class. */
  makeError: (message: string, cause?: unknown) => Error;
}

/** A lock file with no readable owner younger than this may still be being written. */
const UNREADABLE_GRACE_MS = 500;
/** The takeover guard is held for microseconds; one older than this was left by a crash. */
const GUARD_STALE_MS = 2_000;
const POLL_MIN_MS = 5;
const POLL_MAX_MS = 100;

/** Lock files held by this process, by path: the token written into each. */
const held = new Map<string, string>();
/**
 * Every token this process has written or is about to write, whatever the spelling of the path
 * it went to: a lock file of this pid whose token is here is alive, so a second spelling of the
 * same file (relative and absolute, through a symlink) waits instead of taking it over.
 */
const ownTokens = new Set<string>();
let exitHookInstalled = false;

/** True while this process holds the lock file at `lockPath`. */
export function isFileLockHeld(lockPath: string): boolean {
  return held.has(lockPath);
}

/**
 * Waits for the in-process queue of `lockPath`, then for the lock file itself,
 * together at most `timeoutMs`; resolves to a release function (idempotent,
 * removes the file only if it is still ours). A lock file whose owner is dead on
 * this host (or unreadable and older than a moment) is taken over at once. Throws
 * `makeError("<label> busy: <subject> ...")` naming the holder when the wait runs
 * out, and `makeError("cannot ... lock ...")` when the file cannot be created or
 * read. Locks still held when the process exits are removed by an exit hook; a
 * process killed outright leaves its file, which the next caller takes over at once.
 */
export async function acquireFileLock(lockPath: string, options: FileLockOptions): Promise<() => Promise<void>> {
  const { clock, timeoutMs } = options;
  const deadline = clock.now() + timeoutMs;
  const inProcess = `is held by ${options.inProcessHolder ?? "another caller"} in this process`;
  const leaveQueue = await enterQueue(lockPath, deadline, clock, () => busy(options, inProcess));
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
  installExitHook();
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
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), ts: options.clock.now(), token };
  const content = JSON.stringify(owner);
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

/**
 * Creates the lock file with its owner, exclusively. Creating, reading and removing a lock file are
 * synchronous here as in `takeOver`: each is one small metadata operation, where a trip through
 * libuv's thread pool costs a turn about 0.3 ms of waiting per step, some ten steps per turn.
 */
function tryCreate(lockPath: string, content: string, options: FileLockOptions): boolean {
  try {
    writeFileSync(lockPath, content, { flag: "wx" });
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw options.makeError(`cannot create the ${options.label} lock ${lockPath}: ${(error as Error).message}`, error);
  }
}

type LockState = { kind: "gone" } | { kind: "dead"; raw: string } | { kind: "alive"; owner: LockOwner } | { kind: "unreadable" };

async function inspect(lockPath: string, options: FileLockOptions): Promise<LockState> {
  let raw: string;
  try {
    raw = readRegularFileSync(lockPath);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "gone" };
    throw options.makeError(`cannot read the ${options.label} lock ${lockPath}: ${(error as Error).message}`, error);
  }
  const owner = parseOwner(raw);
  if (owner === undefined) {
    // mtime is wall-clock time, so it is compared with Date.now(), not the injected clock.
    const age = await stat(lockPath).then((s) => Date.now() - s.mtimeMs, () => 0);
    return age > UNREADABLE_GRACE_MS ? { kind: "dead", raw } : { kind: "unreadable" };
  }
  if (owner.hostname !== hostname()) return { kind: "alive", owner };
  if (owner.pid === process.pid) return ownTokens.has(owner.token) ? { kind: "alive", owner } : { kind: "dead", raw };
  return processExists(owner.pid) && !startedAfter(owner.pid, owner.ts) ? { kind: "alive", owner } : { kind: "dead", raw };
}

/** Linux clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on every mainstream build). */
const USER_HZ = 100;
/** Slack between a process's start and the lock it wrote, for clock granularity. */
const START_SLACK_MS = 2_000;

/**
 * Whether the process now holding `pid` started after `lockTs`: then the pid was reused
 * by an unrelated process and the lock's real owner is dead. Linux only (reads /proc);
 * elsewhere, or when anything cannot be read, answers false (the lock counts as held).
 */
function startedAfter(pid: number, lockTs: number): boolean {
  try {
    const startTicks = Number(procStatFields(pid)?.[19]);
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"))?.[1]);
    if (!Number.isFinite(startTicks) || !Number.isFinite(bootSeconds)) return false;
    return bootSeconds * 1000 + (startTicks / USER_HZ) * 1000 > lockTs + START_SLACK_MS;
  } catch {
    return false;
  }
}

/**
 * Removes a dead owner's lock file, race-safely: only under a takeover guard
 * (itself created exclusively), and only if the file still holds the very content
 * judged dead, so a lock just taken by another contender is never removed. The
 * guarded steps are synchronous, so the guard lives for microseconds.
 */
function takeOver(lockPath: string, raw: string): boolean {
  const guard = `${lockPath}.takeover`;
  try {
    writeFileSync(guard, JSON.stringify({ pid: process.pid, hostname: hostname() }), { flag: "wx" });
  } catch {
    clearStaleGuard(guard);
    return false;
  }
  try {
    if (readRegularFileSync(lockPath) === raw) unlinkSync(lockPath);
  } catch {
    // Gone already: the caller simply tries to create it again.
  } finally {
    tryUnlinkSync(guard);
  }
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

function removeIfOurs(lockPath: string, token: string, options: FileLockOptions): void {
  try {
    if (parseOwner(readRegularFileSync(lockPath))?.token === token) unlinkSync(lockPath);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw options.makeError(`cannot release the ${options.label} lock ${lockPath}: ${(error as Error).message}`, error);
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const [lockPath, token] of held) {
      try {
        if (parseOwner(readRegularFileSync(lockPath))?.token === token) unlinkSync(lockPath);
      } catch {
        // Exiting: nothing more can be done, and the next caller takes a dead owner's lock over.
      }
    }
  });
}

function parseOwner(raw: string): LockOwner | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof value.pid === "number" && typeof value.hostname === "string") {
      return { pid: value.pid, hostname: value.hostname, ts: Number(value.ts ?? 0), token: String(value.token ?? "") };
    }
  } catch {
    // Falls through: not an owner.
  }
  return undefined;
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

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function tryUnlinkSync(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
}
