// One turn at a time per session: an in-process queue plus a lock file shared across processes.
//
// Why not proper-lockfile: it judges a lock stale by the age of its mtime, so a lock
// whose owner died stays in force until the stale period runs out (and a live owner
// in a long turn must keep touching it). Here staleness is whether the owner is
// alive: the lock file names its pid and host, and a dead owner's lock is taken
// over at once. A lock can therefore never outlive its process, and a live one is
// never stolen because its turn is slow.
import { randomUUID } from "node:crypto";
import { readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { readFile, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import type { Clock } from "../deps.js";
import { SessionError } from "../errors.js";
import { enterQueue } from "./lock-queue.js";

/** What a lock file holds. */
export interface LockOwner {
  pid: number;
  hostname: string;
  /** When the lock was taken (ms since the epoch). */
  ts: number;
  /** Unique per acquisition, so a release never removes someone else's lock. */
  token: string;
}

/** Options of `acquireSessionLock`. */
export interface AcquireOptions {
  /** Used in the "session busy" message. */
  key: string;
  timeoutMs: number;
  clock: Clock;
}

/** A lock file with no readable owner younger than this may still be being written. */
const UNREADABLE_GRACE_MS = 500;
/** The takeover guard is held for microseconds; one older than this was left by a crash. */
const GUARD_STALE_MS = 2_000;
const POLL_MIN_MS = 5;
const POLL_MAX_MS = 100;

/** Lock files held by this process: their token, and whether the holder has written to the session since taking it. */
const held = new Map<string, { token: string; wrote: boolean }>();
let exitHookInstalled = false;

/** True while this process holds the lock file at `lockPath`. */
export function isLockHeld(lockPath: string): boolean {
  return held.has(lockPath);
}

/** Notes that the session of `lockPath` was written to; counts only while this process holds its lock. */
export function noteWrite(lockPath: string): void {
  const entry = held.get(lockPath);
  if (entry) entry.wrote = true;
}

/**
 * True when this process holds the lock of `lockPath` and has written to the
 * session since taking it: a turn is under way, so the end of the file is that
 * turn's own state, not the remains of an interrupted one.
 */
export function hasWrittenUnderLock(lockPath: string): boolean {
  return held.get(lockPath)?.wrote === true;
}

/**
 * Waits for the in-process queue of `lockPath`, then for the lock file itself,
 * together at most `timeoutMs`; resolves to a release function (idempotent,
 * removes the file only if it is still ours). A lock file whose owner is dead on
 * this host (or unreadable and older than a moment) is taken over at once. Throws
 * SessionError("session busy: ...") naming the holder when the wait runs out.
 * Locks still held when the process exits are removed by an exit hook; a process
 * killed outright leaves its file, which the next caller takes over at once.
 */
export async function acquireSessionLock(lockPath: string, options: AcquireOptions): Promise<() => Promise<void>> {
  const { clock, key, timeoutMs } = options;
  const deadline = clock.now() + timeoutMs;
  const leaveQueue = await enterQueue(lockPath, deadline, clock, () => busy(key, "is held by another turn in this process", timeoutMs));
  let token: string;
  try {
    token = await acquireFile(lockPath, deadline, options);
  } catch (error) {
    leaveQueue();
    throw error;
  }
  held.set(lockPath, { token, wrote: false });
  installExitHook();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    held.delete(lockPath);
    try {
      await removeIfOurs(lockPath, token);
    } finally {
      leaveQueue();
    }
  };
}

async function acquireFile(lockPath: string, deadline: number, options: AcquireOptions): Promise<string> {
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), ts: options.clock.now(), token: randomUUID() };
  const content = JSON.stringify(owner);
  for (let delay = POLL_MIN_MS; ; delay = Math.min(delay * 2, POLL_MAX_MS)) {
    if (await tryCreate(lockPath, content)) return owner.token;
    const state = await inspect(lockPath);
    if (state.kind === "gone") continue;
    if (state.kind === "dead" && takeOver(lockPath, state.raw)) continue;
    const left = deadline - options.clock.now();
    if (left <= 0) throw busy(options.key, describe(state), options.timeoutMs, lockPath);
    await options.clock.sleep(Math.min(left, delay * (0.5 + Math.random())));
  }
}

async function tryCreate(lockPath: string, content: string): Promise<boolean> {
  try {
    await writeFile(lockPath, content, { flag: "wx" });
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw new SessionError(`cannot create the session lock ${lockPath}: ${(error as Error).message}`, { cause: error });
  }
}

type LockState = { kind: "gone" } | { kind: "dead"; raw: string } | { kind: "alive"; owner: LockOwner } | { kind: "unreadable" };

async function inspect(lockPath: string): Promise<LockState> {
  let raw: string;
  try {
    raw = await readFile(lockPath, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { kind: "gone" };
    throw new SessionError(`cannot read the session lock ${lockPath}: ${(error as Error).message}`, { cause: error });
  }
  const owner = parseOwner(raw);
  if (owner === undefined) {
    // mtime is wall-clock time, so it is compared with Date.now(), not the injected clock.
    const age = await stat(lockPath).then((s) => Date.now() - s.mtimeMs, () => 0);
    return age > UNREADABLE_GRACE_MS ? { kind: "dead", raw } : { kind: "unreadable" };
  }
  if (owner.hostname !== hostname()) return { kind: "alive", owner };
  if (owner.pid === process.pid) return held.get(lockPath)?.token === owner.token ? { kind: "alive", owner } : { kind: "dead", raw };
  return isAlive(owner.pid) && !startedAfter(owner.pid, owner.ts) ? { kind: "alive", owner } : { kind: "dead", raw };
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
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const startTicks = Number(fields[19]);
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
    if (readFileSync(lockPath, "utf8") === raw) unlinkSync(lockPath);
  } catch {
    // Gone already: the caller simply tries to create it again.
  } finally {
    tryUnlinkSync(guard);
  }
  return true;
}

function clearStaleGuard(guard: string): void {
  try {
    const owner = parseOwner(readFileSync(guard, "utf8"));
    const dead = owner !== undefined && owner.hostname === hostname() && owner.pid !== process.pid && !isAlive(owner.pid);
    if (dead || Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS) unlinkSync(guard);
  } catch {
    // The guard vanished meanwhile, which is what we wanted.
  }
}

async function removeIfOurs(lockPath: string, token: string): Promise<void> {
  try {
    if (parseOwner(await readFile(lockPath, "utf8"))?.token === token) await unlink(lockPath);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw new SessionError(`cannot release the session lock ${lockPath}: ${(error as Error).message}`, { cause: error });
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const [lockPath, { token }] of held) {
      try {
        if (parseOwner(readFileSync(lockPath, "utf8"))?.token === token) unlinkSync(lockPath);
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

/** `kill(pid, 0)` checks existence without signalling; EPERM means it exists under another user. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}

function describe(state: LockState): string {
  if (state.kind !== "alive") return "is being locked by another process";
  const { owner } = state;
  const where = owner.hostname === hostname() ? "" : ` on ${owner.hostname}`;
  return `is locked by process ${owner.pid}${where} since ${new Date(owner.ts).toISOString()}`;
}

function busy(key: string, why: string, timeoutMs: number, lockPath?: string): SessionError {
  const file = lockPath ? `; lock file ${lockPath}` : "";
  return new SessionError(`session busy: ${key} ${why} (waited ${timeoutMs} ms${file})`);
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
