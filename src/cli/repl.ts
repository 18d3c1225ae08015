// The REPL assistant: a prompt naming the agent, streamed replies, inline approvals, Ctrl-C to interrupt, slash commands.
import { join } from "node:path";
import type Anthropic from "@anthropic-ai/sdk";
import { refuseApprover } from "../deps.js";
import { APPROVALS_FILE } from "../loop/options.js";
import { openAssistant } from "../runtime/assistant.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { HISTORY_FILE, openLineInput } from "./line-input.js";
import { createRenderer, useColor } from "./render.js";
import { openWorkspace } from "./setup.js";
import { handleSlashCommand, type ReplState } from "./slash-commands.js";
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

/** Runs the REPL until /exit, Ctrl-D, two Ctrl-C on an empty prompt, or the end of piped input. */
export async function runRepl(args: CliArgs, io: CliIo, options: ReplOptions = {}): Promise<number> {
  const { workspace, client } = await openWorkspace(args, io, options.client);
  const input = await openLineInput(io, join(workspace, HISTORY_FILE));
  const color = useColor(io.stdout, io.env);
  let turn: AbortController | undefined;
  const approver = input.interactive
    ? terminalApprover(input, io.stdout, {
        color,
        turnSignal: () => turn?.signal,
        width: () => io.stdout.columns ?? DEFAULT_COLUMNS,
        approvalsFile: join(workspace, APPROVALS_FILE),
      })
    : refuseApprover;
  const assistant = await openAssistant({
    workspace,
    cwd: io.cwd,
    env: io.env,
    client,
    approver,
    onWarning: (message) => io.stderr.write(`warning: ${visibleText(message, { keepLineBreaks: true })}\n`),
    ...(args.model !== undefined && { model: args.model }),
    ...(args.agent !== undefined && { defaultAgent: args.agent }),
    ...(args.permissionMode !== undefined && { permissionMode: args.permissionMode }),
  });
  const agentId = args.agent ?? "main";
  const state: ReplState = { assistant, agentId, sessionKey: args.session ?? assistant.sessionKeyFor(agentId), out: io.stdout, color };

  let lastInterrupt = 0;
  input.onInterrupt(() => {
    if (turn && !turn.signal.aborted) return turn.abort();
    const now = Date.now();
    if (now - lastInterrupt < EXIT_WINDOW_MS) return input.close();
    lastInterrupt = now;
    io.stdout.write("\n(press Ctrl-C again or Ctrl-D to exit)\n");
  });
  if (options.banner) (input.interactive ? io.stdout : io.stderr).write(`${options.banner}\n`);
  if (input.interactive) {
    const agent = assistant.agents[agentId]!;
    io.stdout.write(`miniclaw · ${visibleLine(agent.name, 60)} (${agentId}) · session ${visibleLine(state.sessionKey, 200)} · /help for commands, Ctrl-D to exit\n`);
  }
  try {
    for (;;) {
      const agent = assistant.agents[state.agentId]!;
      const line = await input.next(`${visibleLine(agent.name, 60)}› `);
      if (line === undefined) break;
      if (!line.trim()) continue;
      await input.remember(line);
      const handled = await handleSlashCommand(line, state).catch((error: unknown) => {
        io.stdout.write(`${visibleText(error instanceof Error ? error.message : String(error), { keepLineBreaks: true })}\n`);
        return "handled" as const;
      });
      if (handled === "exit") break;
      if (handled === "handled") continue;
      turn = new AbortController();
      await sendTurn(line, state, io, turn.signal, input.interactive);
      turn = undefined;
    }
  } finally {
    input.close();
    assistant.close();
  }
  if (input.interactive) io.stdout.write("\n");
  return 0;
}

/**
 * One turn. On a terminal the reply streams and activity lines go with it; in line mode
 * stdout gets only the final reply (scriptable) and activity goes to stderr.
 */
async function sendTurn(line: string, state: ReplState, io: CliIo, signal: AbortSignal, interactive: boolean): Promise<void> {
  const render = interactive
    ? createRenderer(io.stdout, { color: state.color, streamText: true })
    : createRenderer(io.stderr, { color: useColor(io.stderr, io.env), streamText: false });
  const sink = interactive && state.color ? withSpinner(render, io.stdout) : Object.assign(render, { stop: () => {} });
  const { agent } = state.assistant.route(line);
  const sessionKey = agent.id === state.agentId ? state.sessionKey : state.assistant.sessionKeyFor(agent.id);
  try {
    const result = await state.assistant.send(line, { sessionKey, signal, onEvent: sink });
    if (!interactive && result.text) io.stdout.write(`${visibleReply(result.text, io.stdout)}\n`);
    if (!render.atLineStart()) io.stdout.write("\n");
    const notes = interactive ? io.stdout : io.stderr;
    if (result.stopReason === "aborted") notes.write("(interrupted)\n");
    else if (result.stopReason !== "end_turn" && result.stopReason !== "error") notes.write(`(stopped: ${result.stopReason}${result.error ? ` — ${visibleText(result.error)}` : ""})\n`);
  } catch (error) {
    sink({ type: "warning", message: error instanceof Error ? error.message : String(error) });
  } finally {
    sink.stop();
  }
}
