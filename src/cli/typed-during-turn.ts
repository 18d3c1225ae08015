// A line typed while a turn runs: /mode and /queue at once, a steering message for the running turn, or a message queued for after it.
import { styleText } from "node:util";
import type { EventSink } from "../types.js";
import { modeCommand, queueCommand } from "./mode-commands.js";
import { replCommandOf, type ReplState } from "./slash-commands.js";
import { visibleLine, visibleText } from "./visible-text.js";

/** The turn a typed line may steer: its session and whether it is being interrupted. */
export interface RunningTurn {
  sessionKey: string;
  agentId: string;
  signal: AbortSignal;
}

/** What typed lines need from the REPL: its state, the running turn, and where notes go. */
export interface TypedLineContext {
  state: ReplState;
  running: () => RunningTurn | undefined;
  /** Writes one whole line of its own (the REPL clears what was on the terminal's line first). */
  note: (text: string) => void;
  columns: () => number;
}

/**
 * Steering lines this REPL sent, so the turn's `steer` event for each is not printed twice (it was
 * shown as `(steer) …` when typed). A steer from elsewhere (`miniclaw steer`) is still printed.
 */
export interface SteerEcho {
  /** Wraps a turn's sink: drops the `steer` event of a line typed here, once per line. */
  filter(sink: EventSink): EventSink;
  /** At the turn's end: the lines it did not take (they wait in the inbox for the session's next turn); forgets them. */
  leftover(): string[];
}

/**
 * Handles a line typed during a turn; true when it was taken, false to queue it as the next
 * message. /mode and /queue apply at once (a mode reaches the running turn from its next tool
 * call). With `/queue steer` (the default), a plain message for the running turn's agent goes to
 * its session's inbox and is shown dim as `(steer) …`; other commands, a message for another
 * agent, and everything under `/queue followup` wait for the turn's end, shown as `queued: …`.
 */
export function takeTypedLine(line: string, ctx: TypedLineContext, echo: SteerEcho & { sent: string[] }): boolean {
  const { state } = ctx;
  const dim = (text: string): string => (state.color ? styleText("dim", text) : text);
  const command = replCommandOf(line, state.assistant.agents);
  if (command?.name === "mode" || command?.name === "queue") {
    const said = command.name === "mode" ? modeCommand(command.args, state) : queueCommand(command.args, state);
    ctx.note(visibleText(said, { keepLineBreaks: true }));
    return true;
  }
  const turn = ctx.running();
  const steerable = command === undefined && turn !== undefined && !turn.signal.aborted && state.assistant.route(line).agent.id === turn.agentId;
  if (state.queue === "followup" || !steerable) {
    ctx.note(dim(`queued: ${visibleLine(line, ctx.columns() - 10)}`));
    return false;
  }
  echo.sent.push(line);
  ctx.note(dim(`(steer) ${visibleLine(line, ctx.columns() - 10)}`));
  state.assistant.steer(turn.sessionKey, line).catch((error: unknown) => {
    echo.sent.splice(echo.sent.indexOf(line), 1);
    ctx.note(`warning: the steering message was not sent: ${visibleText(error instanceof Error ? error.message : String(error))}`);
  });
  return true;
}

/** The record of steering lines typed in this REPL (see SteerEcho). */
export function createSteerEcho(): SteerEcho & { sent: string[] } {
  const sent: string[] = [];
  return {
    sent,
    filter: (sink) => (event) => {
      if (event.type === "steer" && event.parentToolUseId === undefined) {
        const index = sent.indexOf(event.text);
        if (index >= 0) return void sent.splice(index, 1);
      }
      sink(event);
    },
    leftover: () => sent.splice(0, sent.length),
  };
}
