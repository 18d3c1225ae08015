// The REPL assistant: a banner naming agent, model and server, streamed Markdown replies, single-key approvals, Ctrl-C or Esc to interrupt, steering and type-ahead, slash commands, !commands and @files.
import { join } from "node:path";
import { styleText } from "node:util";
import type Anthropic from "@anthropic-ai/sdk";
import { refuseApprover } from "../deps.js";
import { DEFAULT_MODEL } from "../model/client.js";
import { APPROVALS_FILE } from "../runtime/open-runtime.js";
import { openCliAssistant } from "./assistant-setup.js";
import { isSuccessfulStop } from "../types.js";
import { given, turnFlags, type CliArgs } from "./args.js";
import { stopOnSignals, type CliIo } from "./io.js";
import { HISTORY_FILE, openLineInput, type LineInput } from "./line-input.js";
import { createMarkdownStream } from "./markdown-stream.js";
import { createRenderer, useColor, withSpinner } from "./render.js";
import { openWorkspace, reportRetries } from "./setup.js";
import type { CassetteRecorder } from "../testing/record.js";
import { handleSlashCommand, mcpPromptMessage, replCommandOf, type ReplState } from "./slash-commands.js";
import { restoredMode } from "./setting-commands.js";
import { createSteerEcho, takeTypedLine, type RunningTurn, type SteerEcho } from "./typed-during-turn.js";
import { terminalApprover, terminalElicit } from "./approval-question.js";
import { visibleLine, visibleReply, visibleText } from "./visible-text.js";
import { banner, chooseReplSession, describeReopened } from "./repl-session.js";
import { attachFiles, createPendingContext, runUserCommand, type PendingContext } from "./user-context.js";

const EXIT_WINDOW_MS = 2_000;
const DEFAULT_COLUMNS = 80;

/** The turn of one message: how to interrupt it, where its events are drawn, and what a typed line may steer. */
type ReplTurn = { controller: AbortController; sink: ReturnType<typeof createRenderer> & { stop(): void }; running: RunningTurn };

/** One REPL: its input and state, the turn running now (if any), and how to close what it opened. */
interface Repl {
  io: CliIo;
  input: LineInput;
  state: ReplState;
  echo: SteerEcho;
  /** The API's base URL without a trailing slash. */
  server: string;
  turn?: ReplTurn | undefined;
  /** With `--record FILE`: the cassette each message is marked in. */
  recorder?: CassetteRecorder | undefined;
  /** What `!command` and `@path` gathered for the next message. */
  context: PendingContext;
  /** The `!command` running now, stopped by Ctrl-C. */
  command?: AbortController | undefined;
  close(): Promise<void>;
}

/**
 * Runs the REPL until /exit, Ctrl-D, two Ctrl-C at an empty prompt, the input's end or a signal (SIGTERM; SIGINT in line mode), which interrupts the
 * turn: 0, 143 (SIGTERM), 130 (SIGINT), or in line mode 1 after a failed turn; the assistant is closed first. `client`: a ready one; `banner`: printed first.
 */
export async function runRepl(args: CliArgs, io: CliIo, options: { client?: Anthropic; banner?: string } = {}): Promise<number> {
  const { workspace, client, recorder } = await openWorkspace(args, io, options.client);
  const input = await openLineInput(io, join(workspace, HISTORY_FILE));
  const repl = await openRepl(args, io, input, workspace, client, recorder).catch((error: unknown) => {
    input.close();
    throw error;
  });
  // On a terminal, Ctrl-C is a key the line editor takes, never a signal.
  const signalled = stopOnSignals(io, input.interactive ? ["SIGTERM"] : ["SIGTERM", "SIGINT"], () => {
    repl.turn?.controller.abort();
    repl.command?.abort();
    input.close();
  });
  let failed = false;
  try {
    if (await startSession(repl, args, client.baseURL, options.banner)) failed = await readMessages(repl);
  } finally {
    input.close();
    await repl.close();
    signalled.off();
  }
  if (input.interactive) io.stdout.write("\n");
  return signalled.code ?? (failed && !input.interactive ? 1 : 0);
}

/** Picks the session, then says what the REPL opened: the banner, what it reopened, the mode it restored. False when the person picked none. */
async function startSession(repl: Repl, args: CliArgs, baseURL: string, demoBanner: string | undefined): Promise<boolean> {
  const { io, input, state } = repl;
  const notes = input.interactive ? io.stdout : io.stderr;
  const say = (text: string): void => void notes.write(`${text}\n`);
  if (demoBanner) say(demoBanner);
  const session = await chooseReplSession(args, state.assistant, input, say);
  if (session === undefined) return false;
  Object.assign(state, session);
  if (input.interactive) say(banner(state.assistant, session, { model: args.model, envModel: io.env["MINICLAW_MODEL"], baseURL, width: io.stdout.columns ?? DEFAULT_COLUMNS }));
  const reopened = await describeReopened(state.assistant, state.sessionKey, Date.now());
  if (reopened) say(reopened);
  // Without --permission-mode, the session goes on in the mode its file last recorded; one that cannot be read starts in default.
  const recorded = args.permissionMode === undefined ? await state.assistant.sessions.load(state.sessionKey, { mode: "read" }).catch(() => undefined) : undefined;
  const restored = restoredMode(recorded?.mode);
  if (restored.mode) state.assistant.setPermissionMode(restored.mode);
  if (restored.note) say(restored.note);
  // Started now so the first message waits less; a person takes seconds to type it. Piped lines arrive at once: the turn connects them.
  if (input.interactive) void state.mcp?.connect();
  return true;
}

/** Opens the assistant with the terminal's approver, and wires Ctrl-C and the lines typed during a turn to the REPL. */
async function openRepl(args: CliArgs, io: CliIo, input: LineInput, workspace: string, client: Anthropic, recorder: CassetteRecorder | undefined): Promise<Repl> {
  const color = useColor(io.stdout, io.env);
  const width = (): number => io.stdout.columns ?? DEFAULT_COLUMNS;
  const live: { turn?: ReplTurn | undefined; command?: AbortController | undefined } = {};
  const context = createPendingContext();
  const opened = await openCliAssistant(args, io, {
    workspace,
    client: reportRetries(client, () => live.turn?.sink, (message) => io.stderr.write(`warning: ${visibleText(message)}\n`)),
    approver: input.interactive
      ? terminalApprover(input, io.stdout, {
          color,
          turnSignal: () => live.turn?.controller.signal,
          // Esc or Ctrl-C at the question stops the turn, as it does while the turn streams.
          interrupt: () => live.turn?.controller.abort(),
          width,
          approvalsFile: join(workspace, APPROVALS_FILE),
        })
      : refuseApprover,
    // A warning during a turn is one of its lines; between turns (a server connecting in the background) it goes above the prompt.
    onWarning: (message) => (live.turn ? live.turn.sink({ type: "warning", message }) : input.notice(`warning: ${visibleText(message, { keepLineBreaks: true })}`)),
    // --effort lives in the REPL's state (/effort changes it); the other turn flags hold for every turn. What !command and
    // @path gathered joins the next message as context (never the system prompt, which stays byte-stable).
    // A person's next message may come after a coffee: cached for an hour, a session with breaks costs 0.64× (a turn a minute, 1.13×; docs/performance.md).
    turn: { ...given({ ...turnFlags(args), effort: undefined }), ...(input.interactive && { cacheTtl: "1h" as const }), hooks: { onTurnStart: () => context.take() } },
  }, input.interactive ? { elicit: terminalElicit(input, io.stdout, { color }) } : {});
  const { assistant, mcp } = opened;
  const effort = args.effort === undefined ? undefined : { level: args.effort, source: "--effort" as const };
  const named = args.model !== undefined ? "from --model" : io.env["MINICLAW_MODEL"] ? "from MINICLAW_MODEL" : "the default";
  const modelFallback = { model: assistant.runtime.settings.model ?? DEFAULT_MODEL, named };
  // The session is chosen once the REPL is open (--resume may ask on the terminal): `startSession` sets it.
  const state: ReplState = { assistant, mcp, agentId: "", sessionKey: "", out: io.stdout, color, effort, showThinking: false, queue: "steer", modelFallback };
  const repl: Repl = Object.assign(live, { io, input, state, context, echo: createSteerEcho(), server: client.baseURL.replace(/\/+$/, ""), recorder, close: opened.close });
  let lastInterrupt = 0;
  input.onInterrupt = () => {
    if (repl.turn && !repl.turn.controller.signal.aborted) return repl.turn.controller.abort();
    if (repl.command && !repl.command.signal.aborted) return repl.command.abort();
    const now = Date.now();
    if (now - lastInterrupt < EXIT_WINDOW_MS) return input.close();
    lastInterrupt = now;
    io.stdout.write("\n(press Ctrl-C again or Ctrl-D to exit)\n");
  };
  const note = (text: string): void => void io.stdout.write(`\r\x1b[K${text}\n`);
  input.onTypedAhead = (line) => takeTypedLine(line, { state, running: () => repl.turn?.running, note, columns: width }, repl.echo);
  return repl;
}

/** Reads messages until the input ends or /exit; resolves to whether any turn ended in an error. */
async function readMessages(repl: Repl): Promise<boolean> {
  const { io, input, state } = repl;
  let failed = false;
  for (;;) {
    const mode = state.assistant.permissionMode === "default" ? "" : ` (${state.assistant.permissionMode})`;
    const typed = await input.next(`${visibleLine(state.assistant.agents[state.agentId]!.name, 60)}${mode}› `);
    if (typed === undefined) return failed;
    if (!typed.trim()) continue;
    if (typed.startsWith("!")) {
      await input.remember(typed);
      await runUserCommand(typed.slice(1), repl);
      continue;
    }
    // An MCP prompt's command is its text, sent as the message. Only such a line waits here: any other sets up its turn at once.
    const prompt = typed.startsWith("/mcp__") ? await mcpPromptMessage(typed, state.mcp) : undefined;
    if (prompt && "error" in prompt) {
      io.stdout.write(`${visibleText(prompt.error)}\n`);
      continue;
    }
    const line = prompt?.text ?? typed;
    // A message's turn is set up before anything is awaited, so a line typed right after Enter already steers it.
    const command = replCommandOf(line, state.assistant.agents);
    if (command === undefined) repl.turn = newTurn(line, repl);
    await input.remember(typed);
    if (command === undefined) {
      if (!(await sendTurn(line, repl, repl.turn!))) failed = true;
      continue;
    }
    const handled = await handleSlashCommand(line, state).catch((error: unknown) => {
      io.stdout.write(`${visibleText(error instanceof Error ? error.message : String(error), { keepLineBreaks: true })}\n`);
      return "handled" as const;
    });
    if (handled === "exit") return failed;
  }
}

/** A message's turn, in the REPL's session for its agent or another agent's default one; on a terminal Markdown, activity lines and a spinner, in line mode activity on stderr. */
function newTurn(line: string, { state, io, input, server }: Repl): ReplTurn {
  const controller = new AbortController();
  const agentId = state.assistant.route(line).agent.id;
  const sessionKey = agentId === state.agentId ? state.sessionKey : state.assistant.sessionKeyFor(agentId);
  const color = state.color;
  const render = input.interactive
    ? createRenderer(io.stdout, {
        color,
        streamText: true,
        markdown: (write) => createMarkdownStream(write, { color, width: () => io.stdout.columns ?? DEFAULT_COLUMNS }),
        server,
        showThinking: state.showThinking,
      })
    : createRenderer(io.stderr, { color: useColor(io.stderr, io.env), streamText: false, server });
  const sink = input.interactive && color ? Object.assign(withSpinner(render, io.stdout), { atLineStart: render.atLineStart }) : Object.assign(render, { stop: () => {} });
  return { controller, sink, running: { sessionKey, agentId, signal: controller.signal } };
}

/** One turn; resolves to whether it ended without an error. In line mode stdout gets only the final reply (scriptable). */
async function sendTurn(line: string, repl: Repl, turn: ReplTurn): Promise<boolean> {
  const { io, input, state } = repl;
  const notes = input.interactive ? io.stdout : io.stderr;
  input.setBusy(true);
  try {
    const overrides = given({ effort: state.effort?.level, model: state.model });
    const settings = Object.keys(overrides).length === 0 ? {} : { turn: overrides };
    repl.recorder?.turn(line, turn.running.sessionKey, settings.turn);
    if (line.includes("@")) await attachFiles(line, repl);
    const result = await state.assistant.send(line, { sessionKey: turn.running.sessionKey, signal: turn.controller.signal, onEvent: repl.echo.filter(turn.sink), ...settings });
    if (!input.interactive && result.text) io.stdout.write(`${visibleReply(result.text, io.stdout)}\n`);
    if (!turn.sink.atLineStart()) io.stdout.write("\n");
    if (result.stopReason === "aborted") notes.write("(interrupted)\n");
    else if (result.stopReason !== "end_turn" && result.stopReason !== "error") notes.write(`(stopped: ${result.stopReason}${result.error ? ` — ${visibleText(result.error)}` : ""})\n`);
    return result.stopReason === "aborted" || isSuccessfulStop(result.stopReason);
  } catch (error) {
    turn.sink({ type: "warning", message: error instanceof Error ? error.message : String(error) });
    return false;
  } finally {
    turn.sink.stop();
    input.setBusy(false);
    repl.turn = undefined;
    const late = repl.echo.leftover();
    const note = `(steer) the turn ended before it took ${late.length === 1 ? "this line: it goes" : "these lines: they go"} with your next message`;
    if (late.length > 0) notes.write(`${state.color ? styleText("dim", note) : note}\n`);
  }
}
