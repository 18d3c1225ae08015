// The errors miniclaw throws on purpose, each saying who must fix it (see FixedBy); anything else passes through.

/** Who must act on an error: the model (it becomes an is_error result), a person, or nobody (an outcome). */
export type FixedBy = "model" | "person" | "nobody";

/** Base of every error miniclaw throws on purpose; `message` is one line fit to print alone (it names the file, field or value at fault). */
export class MiniclawError extends Error {
  /** Who must act on this error; each subclass fixes it, the base says a person. */
  readonly fixedBy: FixedBy = "person";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Fixed by a person: missing credentials, a bad SOUL.md, cron.json or approvals file, a bad option. Thrown before or outside a turn, never shown to the model. */
export class ConfigError extends MiniclawError {}

/** A session that cannot be read, written or locked (a person fixes the disk), or "session busy" (try again). Once a turn started, it ends `error` instead. */
export class SessionError extends MiniclawError {}

/** Fixed by the model: a call it can correct (a bad path, a refused command, an unknown skill), thrown from `run` and answered as an is_error result. */
export class ToolError extends MiniclawError {
  override readonly fixedBy: FixedBy = "model";
}

/** What `run` returns; whatever it throws becomes a ConfigError whose message is `message(the thrown message)`. */
export function orConfigError<T>(run: () => T, message: (problem: string) => string): T {
  try {
    return run();
  } catch (error) {
    throw new ConfigError(message(messageOf(error)));
  }
}

/** What `run` returns, or `fallback` when it throws: for a failure that only means "none" (unparsable text, a file gone). */
export function orFallback<T, F>(run: () => T, fallback: F): T | F {
  try {
    return run();
  } catch {
    return fallback;
  }
}

/** For a `catch`: `fallback` when `error` says nothing is at the path (ENOENT); anything else is thrown, as `wrap` makes it when given. */
export function ifMissing<F>(error: unknown, fallback: F, wrap?: (error: Error) => Error): F {
  if ((error as { code?: unknown } | null)?.code === "ENOENT") return fallback;
  throw wrap ? wrap(error as Error) : error;
}

/** The message of anything thrown: an Error's message, or the value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
