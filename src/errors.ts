// The errors miniclaw throws on purpose, each saying who must fix it: the model, a person, or nobody.
//
// Three owners, three channels:
// - the model: a ToolError thrown by a tool's `run` never leaves the loop; its message goes back
//   to the model as an `is_error` tool_result, so the model can correct its call;
// - a person: a ConfigError (a file or setting to fix) or a SessionError the disk caused leaves
//   the library; the CLI prints the message alone and exits 1;
// - nobody: an outcome, such as an aborted turn or a turn that hit its limits, is not an error at
//   all: it is a stop reason on the TurnResult. "session busy" is the one outcome thrown, because
//   the turn never started: waiting and retrying is the whole remedy.
// Anything else (a TypeError, an SDK APIError once the transcript is valid) passes through as is.

/** Who must act on an error: the model (it becomes an is_error result), a person, or nobody (an outcome). */
export type FixedBy = "model" | "person" | "nobody";

/**
 * Base of every error miniclaw throws on purpose; `message` is one line fit to print
 * alone (it names the file, field or value at fault). `fixedBy` says who must act.
 */
export class MiniclawError extends Error {
  /** Who must act on this error; each subclass fixes it, the base says a person. */
  readonly fixedBy: FixedBy = "person";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * Fixed by a person: missing credentials, a bad SOUL.md, agent file, cron.json or
 * approvals file, a bad option. Thrown before or outside a turn, never by a tool; the
 * CLI prints the message alone and exits 1. Never shown to the model.
 */
export class ConfigError extends MiniclawError {}

/**
 * A session that cannot be read, written or locked. Fixed by a person when the disk
 * is at fault (permissions, a full disk, an unreadable file: the message names it), or
 * by nobody when it says "session busy" (another turn holds the session: try again).
 * Once a turn has started it never escapes `runAgentTurn`: the turn ends with stop
 * reason `error` instead.
 */
export class SessionError extends MiniclawError {}

/**
 * Fixed by the model: a tool call that failed in a way the model can correct (a bad
 * path, a refused or failed command, an unknown skill). Thrown from a tool's `run`; the
 * dispatcher turns it into an `is_error` tool_result carrying the message, so it never
 * reaches the caller of a turn. One that escapes to the CLI is a bug, not a
 * configuration problem.
 */
export class ToolError extends MiniclawError {
  override readonly fixedBy: FixedBy = "model";
}

/** The message of anything thrown: an Error's message, or the value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
