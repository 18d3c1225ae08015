// Errors a person must fix, split from what the model can fix (which becomes an is_error tool result).

/** Base of every error miniclaw throws on purpose; `message` is one line fit to print alone. */
export class MiniclawError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Missing credentials, a bad SOUL.md, cron.json or approvals file: fixed by the user, not the model. */
export class ConfigError extends MiniclawError {}

/** A session that cannot be read, written or locked (for example "session busy"). */
export class SessionError extends MiniclawError {}

/** A tool that failed in a way the loop reports to the model as an is_error result. */
export class ToolError extends MiniclawError {}
