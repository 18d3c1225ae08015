// The in-process half of a file lock: a promise chain per lock path, waited on with a deadline.
import type { Clock } from "../deps.js";

/** Tail of each lock path's chain; a waiter resolves its link when it leaves. */
const tails = new Map<string, Promise<void>>();

/** Waits until every earlier holder of `lockPath` in this process has left; resolves to an idempotent leave. At `deadline`, leaves and throws `onTimeout()`. */
export async function enterQueue(lockPath: string, deadline: number, clock: Clock, onTimeout: () => Error): Promise<() => void> {
  const previous = tails.get(lockPath) ?? Promise.resolve();
  let leave!: () => void;
  const mine = new Promise<void>((resolve) => {
    leave = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(lockPath, tail);
  void tail.then(() => {
    if (tails.get(lockPath) === tail) tails.delete(lockPath);
  });
  if (await settlesBefore(previous, deadline, clock)) return leave;
  leave();
  throw onTimeout();
}

async function settlesBefore(promise: Promise<void>, deadline: number, clock: Clock): Promise<boolean> {
  let settled = false;
  void promise.then(() => {
    settled = true;
  });
  await Promise.resolve();
  if (settled) return true;
  const stop = new AbortController();
  const outcome = await Promise.race([promise.then(() => true), clock.sleep(Math.max(0, deadline - clock.now()), stop.signal).then(() => false)]);
  stop.abort();
  return outcome || settled;
}
