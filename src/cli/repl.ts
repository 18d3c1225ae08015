// The REPL assistant: a banner naming agent, model and server, streamed Markdown replies, single-key approvals, Ctrl-C or Esc to interrupt, steering and type-ahead, slash commands.
import { join } from "node:path";
import { styleText } from "node:util";
import type Anthropic from "@anthropic-ai/sdk";
import { refuseApprover } from "../deps.js";
import { pickModel } from "../model/client.js";
import { APPROVALS_FILE } from "../runtime/open-runtime.js";
import type { Assistant } from "../assistant/assistant.js";
import { openCliAssistant } from "./assistant-setup.js";
import { isSuccessfulStop, type EventSink } from "../types.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { HISTORY_FILE, openLineInput } from "./line-input.js";
import { createMarkdownStream } from "./markdown-stream.js";
import { createRenderer, useColor } from "./render.js";
import { reportRetries } from "./retry-notes.js";
import { openWorkspace } from "./setup.js";
import { handleSlashCommand, replCommandOf, type ReplState } from "./slash-commands.js";
import { restoredMode } from "./mode-commands.js";
import { createSteerEcho, takeTypedLine, type RunningTurn } from "./typed-during-turn.js";
import { withSpinner } from "./spinner.js";
import { terminalApprover } from "./terminal-approver.js";
import { visibleLine, visibleReply, visibleText } from "./visible-text.js";

export interface ReplOptions {
  /** A ready client (the demo passes one pointed at the scripted model). */
  client?: Anthropic;
  /** Printed once before the first prompt. */
  banner?: string;
}

const EXIT_WINDOW_MS = 2_000;
const DEFAULT_COLUMNS = 80;
const DEFAULT_BASE_URL = "https://api.anthropic.com";

/**
 * Runs the REPL until /exit, Ctrl-D, two Ctrl-C on an empty prompt, the end of piped input, or
 * SIGTERM (and SIGINT in line mode, where no terminal turns Ctrl-C into a key): a signal
 * interrupts the running turn and ends the REPL. Resolves to 0, 143 after SIGTERM, 130 after
 * SIGINT, or in line mode to 1 when a turn ended in an error. However it ends, the assistant is
 * closed first, so the MCP servers it started are stopped. A line typed while a turn runs steers
 * it or waits for its end (`/queue`; see typed-during-turn.ts); the prompt names a permission mode other than default.
 */
export async function runRepl(args: CliArgs, io: CliIo, options: ReplOptions = {}): Promise<number> {
  const opened = await openWorkspace(args, io, options.client);
  const { workspace } = opened;
  const input = await openLineInput(io, join(workspace, HISTORY_FILE));
  const color = useColor(io.stdout, io.env);
  let turn: ReplTurn | undefined;
  const client = reportRetries(opened.client, () => turn?.sink, (message) => io.stderr.write(`warning: ${visibleText(message)}\n`));
  const approver = input.interactive
    ? terminalApprover(input, io.stdout, {
        color,
        turnSignal: () => turn?.controller.signal,
        width: () => io.stdout.columns ?? DEFAULT_COLUMNS,
        approvalsFile: join(workspace, APPROVALS_FILE),
      })
    : refuseApprover;
  // A warning during a turn is one of its lines; between turns (a server connecting in the background) it goes above the prompt.
  const onWarning = (message: string): void => {
    if (turn) return turn.sink({ type: "warning", message });
    input.notice(`warning: ${visibleText(message, { keepLineBreaks: true })}`);
  };
  const opened2 = await openCliAssistant(args, io, {
    workspace,
    cwd: io.cwd,
    env: io.env,
    client,
    approver,
    onWarning,
    // --effort lives in the REPL's state (/effort changes it); --thinking and --max-iterations hold for every turn.
    turn: { ...(args.thinking !== undefined && { thinking: args.thinking }), ...(args.maxIterations !== undefined && { maxIterations: args.maxIterations }) },
    ...(args.model !== undefined && { model: args.model }),
    ...(args.agent !== undefined && { defaultAgent: args.agent }),
    ...(args.permissionMode !== undefined && { permissionMode: args.permissionMode }),
  }).catch((error: unknown) => {
    input.close();
    throw error;
  });
  const { assistant, mcp } = opened2;
  const agentId = args.agent ?? "main";
  const state: ReplState = {
    assistant,
    mcp,
    agentId,
    sessionKey: args.session ?? assistant.sessionKeyFor(agentId),
    out: io.stdout,
    color,
    effort: args.effort === undefined ? undefined : { level: args.effort, source: "--effort" },
    showThinking: false,
    queue: "steer",
  };
  const notes = input.interactive ? io.stdout : io.stderr;

  let lastInterrupt = 0;
  input.onInterrupt(() => {
    if (turn && !turn.controller.signal.aborted) return turn.controller.abort();
    const now = Date.now();
    if (now - lastInterrupt < EXIT_WINDOW_MS) return input.close();
    lastInterrupt = now;
    io.stdout.write("\n(press Ctrl-C again or Ctrl-D to exit)\n");
  });
  const echo = createSteerEcho();
  input.onTypedAhead((line) =>
    takeTypedLine(line, { state, running: () => turn?.running, note: (text) => io.stdout.write(`\r\x1b[K${text}\n`), columns: () => io.stdout.columns ?? DEFAULT_COLUMNS }, echo),
  );
  if (options.banner) notes.write(`${options.banner}\n`);
  if (input.interactive) io.stdout.write(`${banner(state, args, io, opened.client.baseURL)}\n`);
  if (args.permissionMode === undefined) await resumeSessionMode(assistant, state.sessionKey, notes);
  // Started now so the first message waits less; a person takes seconds to type it. Piped lines arrive at once: the turn connects them.
  if (input.interactive) void mcp?.connect();
  const signalled = stopOnSignals(io, input.interactive, () => {
    turn?.controller.abort();
    input.close();
  });
  let failed = false;
  try {
    for (;;) {
      const agent = assistant.agents[state.agentId]!;
      const mode = assistant.permissionMode === "default" ? "" : ` (${assistant.permissionMode})`;
      const line = await input.next(`${visibleLine(agent.name, 60)}${mode}› `);
      if (line === undefined) break;
      if (!line.trim()) continue;
      // A message's turn is set up before anything is awaited, so a line typed right after Enter already steers it.
      const command = replCommandOf(line, assistant.agents);
      if (command === undefined) turn = newTurn(line, state, io, input.interactive, opened.client.baseURL);
      await input.remember(line);
      if (command !== undefined) {
        const handled = await handleSlashCommand(line, state).catch((error: unknown) => {
          io.stdout.write(`${visibleText(error instanceof Error ? error.message : String(error), { keepLineBreaks: true })}\n`);
          return "handled" as const;
        });
        if (handled === "exit") break;
        continue;
      }
      input.setBusy(true);
      if (!(await sendTurn(line, state, io, turn!, echo.filter(turn!.sink)))) failed = true;
      input.setBusy(false);
      turn = undefined;
      const late = echo.leftover();
      if (late.length > 0) notes.write(`${dimmed(`(steer) the turn ended before it took ${late.length === 1 ? "this line" : "these lines"}: ${late.length === 1 ? "it goes" : "they go"} with your next message`, color)}\n`);
    }
  } finally {
    input.close();
    await opened2.close();
    signalled.off();
  }
  if (input.interactive) io.stdout.write("\n");
  if (signalled.code !== undefined) return signalled.code;
  return failed && !input.interactive ? 1 : 0;
}

/**
 * SIGTERM, and in line mode SIGINT, call `stop` once and set the exit code (143, 130). On a
 * terminal, Ctrl-C is a key the line editor takes, never a signal. `off` unsubscribes.
 */
function stopOnSignals(io: CliIo, interactive: boolean, stop: () => void): { code: number | undefined; off(): void } {
  const state: { code: number | undefined; off(): void } = { code: undefined, off: () => {} };
  const on = (code: number) => (): void => {
    if (state.code !== undefined) return;
    state.code = code;
    stop();
  };
  const offs = [io.onSignal("SIGTERM", on(143)), ...(interactive ? [] : [io.onSignal("SIGINT", on(130))])];
  state.off = () => offs.forEach((off) => off());
  return state;
}

/**
 * Without --permission-mode, the session goes on in the mode its file last recorded (never
 * bypassPermissions: see `restoredMode`), saying so. A session that cannot be read starts in the default mode.
 */
async function resumeSessionMode(assistant: Assistant, sessionKey: string, notes: { write(text: string): void }): Promise<void> {
  const loaded = await assistant.sessions.load(sessionKey, { mode: "read" }).catch(() => undefined);
  const restored = restoredMode(loaded?.mode);
  if (restored.mode) assistant.setPermissionMode(restored.mode);
  if (restored.note) notes.write(`${restored.note}\n`);
}

/** `miniclaw · Jarvis (main) · model claude-… · server http://… · session … · /help …`; the server only when it is not Anthropic's. */
function banner(state: ReplState, args: CliArgs, io: CliIo, baseURL: string): string {
  const agent = state.assistant.agents[state.agentId]!;
  const model = pickModel(agent.model, args.model, io.env["MINICLAW_MODEL"]);
  const server = baseURL.replace(/\/+$/, "") === DEFAULT_BASE_URL ? "" : ` · server ${visibleLine(baseURL, 200)}`;
  return `miniclaw · ${visibleLine(agent.name, 60)} (${state.agentId}) · model ${visibleLine(model, 80)}${server} · session ${visibleLine(state.sessionKey, 200)} · /help for commands, Ctrl-D to exit`;
}

type TurnSink = ReturnType<typeof createRenderer> & { stop(): void };

/** The turn of one message: how to interrupt it, where its events are drawn, and what a typed line may steer. */
interface ReplTurn {
  controller: AbortController;
  sink: TurnSink;
  running: RunningTurn;
}

function newTurn(line: string, state: ReplState, io: CliIo, interactive: boolean, baseURL: string): ReplTurn {
  const controller = new AbortController();
  const sink = turnSink(state, io, interactive, baseURL.replace(/\/+$/, ""));
  return { controller, sink, running: { sessionKey: sessionFor(line, state, state.assistant), agentId: state.assistant.route(line).agent.id, signal: controller.signal } };
}

/** On a terminal the reply streams as Markdown with activity lines and a spinner; in line mode activity goes to stderr. */
function turnSink(state: ReplState, io: CliIo, interactive: boolean, server: string): TurnSink {
  const render = interactive
    ? createRenderer(io.stdout, {
        color: state.color,
        streamText: true,
        markdown: (write) => createMarkdownStream(write, { color: state.color, width: io.stdout.columns ?? DEFAULT_COLUMNS }),
        server,
        showThinking: state.showThinking,
      })
    : createRenderer(io.stderr, { color: useColor(io.stderr, io.env), streamText: false, server });
  if (interactive && state.color) return Object.assign(withSpinner(render, io.stdout), { atLineStart: render.atLineStart });
  return Object.assign(render, { stop: () => {} });
}

/**
 * One turn; resolves to whether it ended without an error. In line mode stdout gets only
 * the final reply (scriptable).
 */
async function sendTurn(line: string, state: ReplState, io: CliIo, turn: ReplTurn, onEvent: EventSink): Promise<boolean> {
  const interactive = io.stdin.isTTY === true;
  const { sink } = turn;
  try {
    const settings = state.effort === undefined ? {} : { turn: { effort: state.effort.level } };
    const result = await state.assistant.send(line, { sessionKey: turn.running.sessionKey, signal: turn.controller.signal, onEvent, ...settings });
    if (!interactive && result.text) io.stdout.write(`${visibleReply(result.text, io.stdout)}\n`);
    if (!sink.atLineStart()) io.stdout.write("\n");
    const notes = interactive ? io.stdout : io.stderr;
    if (result.stopReason === "aborted") notes.write("(interrupted)\n");
    else if (result.stopReason !== "end_turn" && result.stopReason !== "error") notes.write(`(stopped: ${result.stopReason}${result.error ? ` — ${visibleText(result.error)}` : ""})\n`);
    return result.stopReason === "aborted" || isSuccessfulStop(result.stopReason);
  } catch (error) {
    sink({ type: "warning", message: error instanceof Error ? error.message : String(error) });
    return false;
  } finally {
    sink.stop();
  }
}

function dimmed(text: string, color: boolean): string {
  return color ? styleText("dim", text) : text;
}

/** The session a message goes to: the REPL's own for its agent, the agent's default for a prefixed message to another. */
function sessionFor(line: string, state: ReplState, assistant: Assistant): string {
  const { agent } = assistant.route(line);
  return agent.id === state.agentId ? state.sessionKey : assistant.sessionKeyFor(agent.id);
}
