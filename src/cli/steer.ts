// `miniclaw steer KEY TEXT`: adds a message to a session's durable inbox, for its running turn or its next one.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import { checkWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import type { CliArgs } from "./args.js";
import { closing, openSessions } from "./backends.js";
import type { CliIo } from "./io.js";
import { visibleLine } from "./visible-text.js";

/** Needs no credentials: it only writes the inbox (a file, or a row when a database is configured). Resolves to 0 once the message is stored; a session that does not exist is a ConfigError. */
export async function steerCommand(args: CliArgs, io: CliIo): Promise<number> {
  const [key, ...words] = args.words;
  const text = words.join(" ");
  if (key === undefined || text.trim() === "") throw new ConfigError('usage: miniclaw steer KEY TEXT, e.g. miniclaw steer agent:main:main "also check the tests" (see miniclaw steer --help)');
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (!(await checkWorkspace(workspace))) throw new ConfigError(`no workspace at ${workspace} (give --workspace DIR, or set MINICLAW_WORKSPACE)`);
  const id = await closing(await openSessions(args, io, workspace), async ({ sessions }) => {
    // A key mistyped would hold the message for a session nobody runs: refused, unless a cron job's first run will open it.
    if (!(await sessions.exists(key)) && !(await cronSessions(workspace)).includes(key)) {
      throw new ConfigError(`no session "${visibleLine(key, 200)}" (miniclaw sessions lists them; miniclaw sessions new KEY makes an empty one to steer)`);
    }
    return sessions.addSteer(key, text);
  });
  io.stderr.write(`steer ${id} queued for ${visibleLine(key, 200)} (its running turn takes it before its next request, or its next turn does)\n`);
  return 0;
}

/** The sessions the jobs of the workspace's cron.json run in; none when it is missing or cannot be read (cron itself says why). */
async function cronSessions(workspace: string): Promise<string[]> {
  const { CRON_FILE, loadCronJobs } = await import("../cron/index.js");
  if (!existsSync(join(workspace, CRON_FILE))) return [];
  return (await loadCronJobs(workspace).catch(() => [])).map((job) => job.session);
}
