// What a terminal test has seen so far, and waiting for text to appear on it.

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\r/g;

export interface Screen {
  /** Adds what the program printed. */
  append(data: string): void;
  /** Everything printed so far, with ANSI escapes removed. */
  output(): string;
  /** Everything printed so far, byte for byte (escapes included). */
  raw(): string;
  /** Resolves when `pattern` appears in the output after `from` (default: anywhere); rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, opts?: { from?: number; timeoutMs?: number }): Promise<void>;
}

/** An empty screen; each `append` wakes the waits whose pattern now shows. */
export function createScreen(): Screen {
  let raw = "";
  const watchers = new Set<() => void>();
  const output = (): string => raw.replace(ANSI, "");
  return {
    append(data) {
      raw += data;
      for (const watcher of [...watchers]) watcher();
    },
    output,
    raw: () => raw,
    waitFor: (pattern, { from = 0, timeoutMs = 8_000 } = {}) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(output().slice(from))) return;
          watchers.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; screen so far:\n${output().slice(-2000)}`));
        }, timeoutMs);
        watchers.add(check);
        check();
      }),
  };
}
