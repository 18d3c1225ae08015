// At most N jobs at once, the rest waiting their turn in order: delegate calls, and approval questions one at a time.

/**
 * Runs at most `max` of the given jobs at once, the rest in the order they came as others finish.
 * A finishing job hands its slot straight to the next waiting one, so a newcomer cannot slip in between.
 */
export function limiter(max: number): <T>(job: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (job) => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await job();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
