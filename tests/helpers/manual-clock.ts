// A clock the test moves by hand: `now` is whatever was set, and each sleep lasts until the test wakes it.
import type { Clock } from "../../src/deps.js";

/** One sleep the code under test is waiting in. */
export interface PendingSleep {
  ms: number;
  /** Ends the sleep, as if `ms` had passed. */
  wake(): void;
}

export interface ManualClock extends Clock {
  /** The length of every sleep asked for so far, in order. */
  readonly sleeps: number[];
  /** Resolves with the oldest sleep not yet handed out (now or when it is asked for). */
  nextSleep(): Promise<PendingSleep>;
  set(now: number): void;
}

/** A clock at `start` that never moves on its own; a sleep also ends when its signal aborts. */
export function manualClock(start = Date.parse("2026-12-01T09:00:00Z")): ManualClock {
  let now = start;
  const sleeps: number[] = [];
  const pending: PendingSleep[] = [];
  const waiters: Array<(sleep: PendingSleep) => void> = [];
  return {
    sleeps,
    now: () => now,
    set: (at) => void (now = at),
    sleep(ms, signal) {
      sleeps.push(ms);
      return new Promise<void>((resolve) => {
        if (signal?.aborted) return resolve();
        signal?.addEventListener("abort", () => resolve(), { once: true });
        const sleep: PendingSleep = { ms, wake: resolve };
        const waiter = waiters.shift();
        if (waiter) waiter(sleep);
        else pending.push(sleep);
      });
    },
    nextSleep() {
      const sleep = pending.shift();
      return sleep ? Promise.resolve(sleep) : new Promise((resolve) => waiters.push(resolve));
    },
  };
}

/**
 * Resolves once `condition()` holds, checking every few milliseconds (every 20 ms when it answers
 * with a promise, a query say); rejects after `timeoutMs` of real time, saying `what` (or the condition).
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000, what?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = condition();
    if (await answer) return;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what ?? condition.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, answer instanceof Promise ? 20 : 2));
  }
}
