// Types of bench/bare-loop.mjs, so the TypeScript bench modules can call it.

/** What `runBareLoop` takes: the server, and the most requests of the turn (default 20). */
export interface BareLoopOptions {
  baseURL: string;
  apiKey?: string;
  rounds?: number;
  prompt?: string;
  /** Stream each request with `messages.stream(...).finalMessage()` instead of `messages.create`. */
  stream?: boolean;
  /** Fields that replace the bare loop's own in every request but its messages (another harness's system prompt and tools). */
  request?: Record<string, unknown>;
}

/** One turn of at most `rounds` requests; resolves to the final text. */
export function runBareLoop(options: BareLoopOptions): Promise<string>;
