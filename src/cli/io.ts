// The process as the CLI sees it: streams, environment, working directory, signals. The one home of `process`.
import { fstatSync } from "node:fs";

/** What a command may touch of its process; tests pass their own. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /** stdin is a shell pipe or a file (`|`, `<`), so `run` reads it with its words; a socket a parent left open is not. */
  stdinPiped?: boolean;
  /** Subscribes to SIGINT/SIGTERM; returns the unsubscribe function. */
  onSignal(signal: "SIGINT" | "SIGTERM", handler: () => void): () => void;
}

/** Until `off()`, the first of `signals` sets `code` (130 for SIGINT, 143 for SIGTERM) and calls `stop`, once: how a command ends cleanly on a signal, its exit code saying which. */
export function stopOnSignals(io: CliIo, signals: ReadonlyArray<"SIGINT" | "SIGTERM">, stop: () => void): { code: number | undefined; off(): void } {
  const state = { code: undefined as number | undefined, off: (): void => offs.forEach((off) => off()) };
  const offs = signals.map((signal) =>
    io.onSignal(signal, () => {
      if (state.code !== undefined) return;
      state.code = signal === "SIGINT" ? 130 : 143;
      stop();
    }),
  );
  return state;
}

/** The real process. */
export function nodeIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stdinPiped: piped(),
    onSignal(signal, handler) {
      process.on(signal, handler);
      return () => process.off(signal, handler);
    },
  };
}

/** Whether fd 0 is a FIFO or a regular file (false for a terminal, /dev/null, a socket, or no fd 0). */
function piped(): boolean {
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isFile();
  } catch {
    return false;
  }
}
