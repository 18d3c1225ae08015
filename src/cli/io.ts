// The process as the CLI sees it: streams, environment, working directory, signals. The one home of `process`.

/** What a command may touch of its process; tests pass their own. */
export interface CliIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /** Subscribes to SIGINT/SIGTERM; returns the unsubscribe function. */
  onSignal(signal: "SIGINT" | "SIGTERM", handler: () => void): () => void;
}

/** The real process. */
export function nodeIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    onSignal(signal, handler) {
      process.on(signal, handler);
      return () => process.off(signal, handler);
    },
  };
}
