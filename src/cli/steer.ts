// `miniclaw steer KEY TEXT`: adds a message to a session's durable inbox, for its running turn or its next one.
import { ConfigError } from "../errors.js";
import { checkWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import type { CliArgs } from "./args.js";
import { openSessions } from "./backends.js";
import type { CliIo } from "./io.js";
import { visibleLine } from "./visible-text.js";

export const STEER_USAGE = `Usage: miniclaw steer KEY TEXT [--workspace DIR]

Adds TEXT to the inbox of session KEY, as if the user had typed it there. The turn
running in that session (a REPL or miniclaw cron, in another terminal) takes it
before its next model request, after the tool calls under way finish; when no turn
runs, the session's next turn takes it with its message. Each message is delivered
once, even if that process crashes. With a database (--database-url, or
MINICLAW_DATABASE_URL) the inbox is a table: the turn may run on any host.

  KEY     a session key, such as agent:main:main or cron:researcher
          (miniclaw sessions lists them)
  TEXT    the message; the words after KEY are joined with spaces

Prints the message's id on stderr and exits 0; exits 1 with one line when the text
is empty or the inbox cannot be written.`;

/** Needs no credentials: it only writes the inbox (a file, or a row when a database is configured). Resolves to 0 once the message is stored. */
export async function steerCommand(args: CliArgs, io: CliIo): Promise<number> {
  const [key, ...words] = args.words;
  const text = words.join(" ");
  if (key === undefined || text.trim() === "") throw new ConfigError('usage: miniclaw steer KEY TEXT, e.g. miniclaw steer agent:main:main "also check the tests" (see miniclaw steer --help)');
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (!(await checkWorkspace(workspace))) throw new ConfigError(`no workspace at ${workspace} (give --workspace DIR, or set MINICLAW_WORKSPACE)`);
  const { sessions, close } = await openSessions(args, io, workspace);
  const { id, known } = await (async () => ({ id: await sessions.addSteer(key, text), known: await sessions.exists(key) }))().finally(close);
  const where = known ? "its running turn takes it before its next request, or its next turn does" : "no such session yet: its first turn will take it";
  io.stderr.write(`steer ${id} queued for ${visibleLine(key, 200)} (${where})\n`);
  return 0;
}
