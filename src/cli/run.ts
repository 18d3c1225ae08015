// `miniclaw run MESSAGE`: one turn in a new session (or --session, or --continue: the last run's), activity on stderr; on stdout the reply (text), one
// JSON object (json), or one event per line then the result (stream-json); and its exit code.
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { text } from "node:stream/consumers";
import { ConfigError, SessionError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readConfigText } from "../fs/config-file.js";
import { refuseApprover, systemClock } from "../deps.js";
import { redactSecrets } from "../gate/redact.js";
import type { JsonSchema, TurnResult } from "../types.js";
import { turnFlags, type CliArgs } from "./args.js";
import { attachMentions } from "./mentions.js";
import { createPendingContext } from "./user-context.js";
import { stopOnSignals, type CliIo } from "./io.js";
import { createRenderer, namingServer, useColor } from "./render.js";
import { openWorkspace, reportRetries } from "./setup.js";
import { visibleJson, visibleLine, visibleReply, visibleText } from "./visible-text.js";

/**
 * Runs one turn: 0 when the model finished (or was cut) on its own, 130 on SIGINT, 143 on SIGTERM, else 1 with one line on stderr; the assistant (and
 * its MCP servers) is closed first. A new session unless `--session` or `--continue` names one; its key goes to stderr and is stored as the last run's
 * before the turn, to continue even an interrupted run. `--output-schema FILE` (read first): stdout gets the checked object alone, or exit 1.
 */
export async function runOnce(args: CliArgs, io: CliIo): Promise<number> {
  const text = runMessage(args.words, await readPipedStdin(io, args.words));
  if (!text) throw new ConfigError('miniclaw run needs a message, e.g. miniclaw run "what is in this folder?", or piped on stdin');
  const format = args.outputFormat ?? "text";
  const started = Date.now();
  const [{ openCliAssistant }, { readOutputSchema }] = await Promise.all([import("./assistant-setup.js"), import("../loop/output.js")]);
  const output = args.outputSchema === undefined ? undefined : await readOutputSchema(resolve(io.cwd, args.outputSchema), args.outputSchema);
  const { workspace, client, recorder } = await openWorkspace(args, io);
  const server = client.baseURL;
  const render = createRenderer(io.stderr, { color: useColor(io.stderr, io.env), streamText: false, server });
  // The files the message mentions join the turn's start, once: a subagent's turn gets none.
  const mentioned = createPendingContext();
  const opened = await openCliAssistant(args, io, {
    workspace,
    // The SDK's retries (429, 529, a failed connection) show as one line each on stderr.
    client: reportRetries(client, () => render, (message) => io.stderr.write(`warning: ${visibleText(message)}\n`)),
    approver: refuseApprover,
    onWarning: (message) => render({ type: "warning", message }),
    turn: { ...turnFlags(args), hooks: { onTurnStart: () => mentioned.take() } },
  });
  const { assistant } = opened;
  // Only the words typed: piped input is data (a web page, a log), and a `@~/.aws/credentials` inside it must not read the file.
  const typed = args.words.filter((word) => word !== "-").join(" ");
  const attached = await attachMentions(typed, { cwd: io.cwd, home: io.env["HOME"], redact: (found) => redactSecrets(found, assistant.runtime.secrets) });
  for (const line of attached.lines) io.stderr.write(`${visibleText(line)}\n`);
  if (attached.context) mentioned.add(attached.context);
  mentioned.addBlocks(attached.blocks);
  const controller = new AbortController();
  const signalled = stopOnSignals(io, ["SIGINT", "SIGTERM"], () => controller.abort());
  try {
    const sessionKey = await chooseRunSession(args, workspace, assistant.route(text).agent.id, systemClock.now());
    await writeLastRunKey(workspace, sessionKey);
    io.stderr.write(`session: ${visibleLine(sessionKey, 200)} (miniclaw run --continue MESSAGE goes on with it)\n`);
    if (recorder && (await assistant.sessions.exists(sessionKey))) recorder.session(sessionKey, await assistant.sessions.show(sessionKey, { all: true }));
    recorder?.turn(text, sessionKey);
    // stream-json: each event as one line of JSON on stdout, as it happens (the result comes from `report`).
    const streamed = format === "stream-json" ? (event: unknown) => io.stdout.write(`${JSON.stringify(event)}\n`) : undefined;
    const result = await assistant.send(text, {
      signal: controller.signal,
      // The turn's error is printed once, as the run's last line, by `report`.
      onEvent: (event) => {
        streamed?.(event);
        if (event.type !== "turn_end") render(event);
      },
      sessionKey,
      ...(output !== undefined && { turn: { output } }),
    });
    return report({ result, format, output, server, signalled: signalled.code, durationMs: Date.now() - started }, io);
  } finally {
    // The handlers stay until the servers are stopped: a signal now must not kill the process mid-close.
    await opened.close();
    signalled.off();
  }
}

/** Stops after which a run exits 0: the model finished, or was cut by its token limit. A refusal is no answer. */
const ANSWERED = new Set(["end_turn", "stop_sequence", "max_tokens"]);

/** The run's stdin, whole: a pipe or file, or any non-terminal when the words are none or `-`; else undefined, so a run spawned with an open, silent stdin does not wait on it. */
async function readPipedStdin(io: CliIo, words: readonly string[]): Promise<string | undefined> {
  const asked = words.length === 0 || (words.length === 1 && words[0] === "-");
  if (io.stdin.isTTY || !(io.stdinPiped || asked)) return undefined;
  return text(io.stdin);
}

/** The message of a run: its words, the piped input after them (or alone, for no words or `-`). */
function runMessage(words: readonly string[], piped: string | undefined): string {
  const given = words.length === 1 && words[0] === "-" ? "" : words.join(" ").trim();
  const input = piped?.trim() ? piped.replace(/\s+$/, "") : "";
  return given && input ? `${given}\n\n${input}` : given || input;
}

/** Prints how the turn ended (`format`: the reply alone, one JSON object, or after the streamed events that object); 0 for an answer, 130 or 143 after a signal, else 1 with one line on stderr (JSON: the stop reason). With a schema, text prints the checked object alone, or exits 1. */
function report(run: { result: TurnResult; format: NonNullable<CliArgs["outputFormat"]>; output: JsonSchema | undefined; server: string; signalled: number | undefined; durationMs: number }, io: CliIo): number {
  const { result, format, output, signalled } = run;
  const stopped = result.stopReason === "aborted";
  const answered = ANSWERED.has(result.stopReason) && (output === undefined || result.output !== undefined);
  const code = stopped ? (signalled ?? 130) : answered ? 0 : 1;
  if (format !== "text") {
    const { text, sessionKey, stopReason, usage, costUsd, iterations, error } = result;
    const object = { type: "result", result: text, session: sessionKey, stopReason, usage, costUsd, iterations, durationMs: run.durationMs, ...(result.output !== undefined && { output: result.output }), ...(error !== undefined && { error }) };
    io.stdout.write(`${JSON.stringify(object)}\n`);
  } else if (output !== undefined && result.output !== undefined) io.stdout.write(`${visibleJson(result.output)}\n`);
  else if (output === undefined && result.text) io.stdout.write(`${visibleReply(result.text, io.stdout)}\n`);
  if (stopped) io.stderr.write(signalled === 143 ? "terminated\n" : "interrupted\n");
  else if (code === 0 && result.stopReason === "max_tokens") io.stderr.write("(stopped: max_tokens)\n");
  else if (code !== 0) io.stderr.write(`miniclaw: ${result.stopReason}: ${visibleText(whyNot(result, output, run.server))}\n`);
  return code;
}

/** One line whatever the error holds (an API error can carry a multi-line body): a script reads the last line of stderr. */
function whyNot(result: TurnResult, output: JsonSchema | undefined, server: string): string {
  if (result.stopReason === "refusal") return "the model declined to answer";
  if (output !== undefined && result.error === undefined && ANSWERED.has(result.stopReason)) return "the turn ended without a structured answer";
  return namingServer(result.error ?? (result.stopReason === "error" ? "the turn failed" : "the turn stopped"), server).replace(/\s+/g, " ").trim();
}

/** Where the key of the last `run` session is kept, inside the workspace (hidden, so session listings skip it). */
export const LAST_RUN_FILE = join("sessions", ".last-run");

/** The key of the last `run` session in `workspace`, or undefined when no run has stored one. */
export async function readLastRunKey(workspace: string): Promise<string | undefined> {
  return (await readConfigText(join(workspace, LAST_RUN_FILE), { optional: true }))?.trim() || undefined;
}

/** Stores `key` as the last `run` session; atomic, so a concurrent `--continue` reads the old key or the new, never half of one. */
export async function writeLastRunKey(workspace: string, key: string): Promise<void> {
  const file = join(workspace, LAST_RUN_FILE);
  await writeFileAtomic(file, `${key}\n`).catch((error: Error) => {
    throw new SessionError(`cannot note the run's session in ${file}: ${error.message}`, { cause: error });
  });
}

/** `--session KEY`, `--continue` the last run's (ConfigError if none), else `agent:<id>:run-<yyyymmdd>-<hhmmss>-<4 hex>` (UTC, lowercase: the file reads as its key; the tail parts two a second). */
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
