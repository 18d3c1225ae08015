// A line typed while a turn runs: /mode and /queue at once, a steering message for the running turn, or a message queued for after it.
import { styleText } from "node:util";
import type { EventSink } from "../types.js";
import { modeCommand, queueCommand } from "./setting-commands.js";
import { replCommandOf, type ReplState } from "./slash-commands.js";
import { visibleLine, visibleText } from "./visible-text.js";

/** The turn a typed line may steer: its session, its agent, and whether it is being interrupted. */
export type RunningTurn = { sessionKey: string; agentId: string; signal: AbortSignal };

/** The record of the steering lines this REPL sent (see `createSteerEcho`). */
export type SteerEcho = ReturnType<typeof createSteerEcho>;

/**
 * A line typed during a turn: true when taken, false to queue it as the next message. /mode and /queue apply at once; under `/queue steer` a plain
 * message for the turn's agent goes to its inbox (`(steer) …`), anything else waits for the end (`queued: …`). `note` writes a whole line.
 */
export function takeTypedLine(
  line: string,
  ctx: { state: ReplState; running: () => RunningTurn | undefined; note: (text: string) => void; columns: () => number },
  echo: SteerEcho,
): boolean {
  const { state } = ctx;
  const dim = (text: string): string => (state.color ? styleText("dim", text) : text);
  const turn = ctx.running();
  // Typed before the next prompt while no turn runs (a command of the REPL's own is finishing): simply the next line.
  if (turn === undefined) return false;
  const command = replCommandOf(line, state.assistant.agents);
  if (command?.name === "mode" || command?.name === "queue") {
    ctx.note(visibleText(command.name === "mode" ? modeCommand(command.args, state) : queueCommand(command.args, state), { keepLineBreaks: true }));
    return true;
  }
  const steerable = command === undefined && !turn.signal.aborted && state.assistant.route(line).agent.id === turn.agentId;
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

/** The steering lines this REPL sent, so their `steer` events are not printed again (one from `miniclaw steer` is); `filter` drops each once from a turn's sink; `leftover` takes those left over. */
export function createSteerEcho() {
  const sent: string[] = [];
  return {
    sent,
    filter: (sink: EventSink): EventSink => (event) => {
      const index = event.type === "steer" && event.parentToolUseId === undefined ? sent.indexOf(event.text) : -1;
      if (index >= 0) sent.splice(index, 1);
      else sink(event);
    },
    leftover: (): string[] => sent.splice(0, sent.length),
  };
}
