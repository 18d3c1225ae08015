// `miniclaw replay FILE`: a cassette's turns run again against this code and workspace, offline; pass, or the first difference.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { refuseApprover, systemClock, type Clock } from "../deps.js";
import { createJobRunner, loadCronJobs, type JobRunnerOptions } from "../cron/index.js";
import { ConfigError } from "../errors.js";
import { secretValues } from "../gate/secret-env.js";
import { createClient } from "../model/client.js";
import { ensureWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import { SessionStore } from "../sessions/store.js";
import { importSession } from "../sessions/session-listing.js";
import { readCassette, type Cassette, type CassetteTurn } from "../testing/cassette.js";
import { replay } from "../testing/replay.js";
import { assistantFlags, parseCliArgs, turnFlags, type CliArgs } from "./args.js";
import { openCliAssistant } from "./assistant-setup.js";
import { closing } from "./backends.js";
import type { CliIo } from "./io.js";
import { visibleText } from "./visible-text.js";

/**
 * Replays FILE: a local server answers each request with its recorded response once it matches (`--tolerate system,tools`: those may differ) as the
 * turns run again with their flags on this workspace, in sessions of their own. 0 and `replay: pass`, or 1 and the first difference; a bad file, a ConfigError.
 */
export async function replayCommand(args: CliArgs, io: CliIo): Promise<number> {
  const [file, ...rest] = args.words;
  if (file === undefined || rest.length > 0) throw new ConfigError("usage: miniclaw replay FILE [--tolerate system,tools]");
  let cassette: Cassette;
  try {
    cassette = readCassette(resolve(io.cwd, file));
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const recorded = parseCliArgs(cassette.header.argv ?? ["run", "replayed"]);
  const secrets = secretValues(io.env);
  const server = await replay(cassette, { tolerate: args.tolerate ?? [], secrets });
  const sessions = await mkdtemp(join(tmpdir(), "miniclaw-replay-"));
  try {
    const requests = cassette.turns.reduce((n, turn) => n + turn.exchanges.length, 0);
    const workspace = args.workspace ?? recorded.workspace;
    await runTurns(cassette, { ...recorded, ...(workspace !== undefined && { workspace }) }, io, server.baseURL, join(sessions, "sessions"));
    const why = server.differences[0] ?? (server.remaining() > 0 ? `the run made ${requests - server.remaining()} of the ${requests} recorded requests` : undefined);
    const turns = `${cassette.turns.length} turn${cassette.turns.length === 1 ? "" : "s"}`;
    io.stdout.write(why === undefined ? `replay: pass (${turns}, ${requests} requests)\n` : `replay: differs from the recording: ${visibleText(why)}\n`);
    return why === undefined ? 0 : 1;
  } finally {
    await server.close();
    await rm(sessions, { recursive: true, force: true });
  }
}

/** Each recorded turn sent again through an assistant on the replay server, in a sessions folder of its own. */
async function runTurns(cassette: Cassette, args: CliArgs, io: CliIo, baseURL: string, sessionsDir: string): Promise<void> {
  const env = { ...io.env, ANTHROPIC_BASE_URL: baseURL, ANTHROPIC_API_KEY: io.env["ANTHROPIC_API_KEY"] || "replay", ANTHROPIC_AUTH_TOKEN: "" };
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  await ensureWorkspace(workspace);
  const store = new SessionStore(sessionsDir);
  for (const session of cassette.sessions) await importSession(store, session.records.map((record) => JSON.stringify(record)).join("\n"), "the cassette", session.key);
  const { databaseUrl: _database, ...fileArgs } = args;
  const options = {
    workspace,
    cwd: io.cwd,
    env,
    client: createClient({ env, maxRetries: 0 }),
    store,
    approver: refuseApprover,
    onWarning: (message: string) => void io.stderr.write(`warning: ${visibleText(message)}\n`),
    turn: turnFlags(args),
    ...assistantFlags(args),
  };
  await closing(await openCliAssistant(fileArgs, { ...io, env }, options), async ({ assistant, plugged }) => {
    for (const turn of cassette.turns) {
      if (turn.job !== undefined) {
        const { approver: _refused, ...jobAssistant } = options;
        io.stderr.write(`turn: ${visibleText(await runRecordedJob(turn, { ...jobAssistant, ...plugged }))}\n`);
        continue;
      }
      const result = await assistant.send(turn.text, { ...(turn.sessionKey !== undefined && { sessionKey: turn.sessionKey }), ...(turn.options && { turn: turn.options }) });
      io.stderr.write(`turn: ${result.stopReason}${result.error ? ` (${visibleText(result.error)})` : ""}\n`);
    }
  });
}

/** A recorded cron run again, as the job now stands in cron.json, on a clock starting when it ran (so active hours and `until` decide as they did); resolves to its status in a few words. */
async function runRecordedJob(turn: CassetteTurn, assistant: JobRunnerOptions["assistant"]): Promise<string> {
  const job = (await loadCronJobs(assistant.workspace)).find((candidate) => candidate.name === turn.job);
  if (!job) return `no job "${turn.job}" in cron.json any more`;
  const offset = (Date.parse(turn.at ?? "") || Date.now()) - Date.now();
  const clock: Clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
  const outcome = await createJobRunner({ assistant, clock })(job, new AbortController().signal);
  return `${job.name} ${outcome.status}${outcome.detail ? ` (${outcome.detail})` : ""}`;
}
