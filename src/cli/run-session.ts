// The session of a `miniclaw run`: a new one each time, `--session KEY`, or `--continue` (the last run's, kept in the workspace).
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { ConfigError, SessionError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readRegularText } from "../fs/regular-file.js";

/** Where the key of the last `run` session is kept, inside the workspace (hidden, so session listings skip it). */
export const LAST_RUN_FILE = join("sessions", ".last-run");

/** The key of the last `run` session in `workspace`, or undefined when no run has stored one. */
export async function readLastRunKey(workspace: string): Promise<string | undefined> {
  const text = await readRegularText(join(workspace, LAST_RUN_FILE)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw new ConfigError(`${join(workspace, LAST_RUN_FILE)}: cannot be read: ${error.message}`);
  });
  return text.trim() || undefined;
}

/** Stores `key` as the last `run` session; atomic, so a concurrent `--continue` reads the old key or the new, never half of one. */
export async function writeLastRunKey(workspace: string, key: string): Promise<void> {
  const file = join(workspace, LAST_RUN_FILE);
  await writeFileAtomic(file, `${key}\n`).catch((error: Error) => {
    throw new SessionError(`cannot note the run's session in ${file}: ${error.message}`, { cause: error });
  });
}

/**
 * The session a run goes to: `--session KEY` as given, `--continue` the last run's (ConfigError when there is none),
 * otherwise a new key for the routed agent: `agent:<id>:run-<yyyymmdd>-<hhmmss>-<4 hex>`, in UTC and lowercase so the
 * session's file name reads as its key; the random tail keeps two runs started in the same second apart.
 */
export async function chooseRunSession(opts: { session?: string | undefined; continueLast: boolean }, workspace: string, agentId: string, now: number): Promise<string> {
  if (opts.session !== undefined) return opts.session;
  if (opts.continueLast) {
    const last = await readLastRunKey(workspace);
    if (last === undefined) throw new ConfigError(`no earlier miniclaw run in ${workspace} to continue: run without --continue to start a session`);
    return last;
  }
  const stamp = new Date(now).toISOString().replace(/[-:]/g, "").slice(0, 15).replace("T", "-");
  return `agent:${agentId}:run-${stamp}-${randomBytes(2).toString("hex")}`;
}
