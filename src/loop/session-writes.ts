// What the loop writes to the session besides responses: the user's message with steering, the checked structured answer, the note that ends a turn.
import type { SessionHandle } from "../sessions/session-handle.js";
import type { MessageParam, StopReason, TurnResult } from "../types.js";
import { correctionText } from "./output.js";
import { takeSteering } from "./steering.js";
import type { TurnSetup } from "./turn-setup.js";
import type { TurnState } from "./turn-state.js";

/** Stops of the harness's own, named in the note that answers a turn left without a reply. */
const NOTED_STOPS: ReadonlySet<StopReason> = new Set(["aborted", "error", "max_iterations", "budget_exceeded", "repeated_tool_call", "model_context_window_exceeded"]);

/**
 * Ends the turn. When the history ends with a user message (the user's, or tool
 * results) the transcript says why it got no reply, so the file reads true; if even
 * that cannot be written, the next load closes the turn instead.
 */
export async function finish(session: SessionHandle, turn: TurnState, stopReason: StopReason, error?: string, errorStatus?: number): Promise<TurnResult> {
  if (session.session.messages.at(-1)?.role === "user") {
    const why = error ?? (NOTED_STOPS.has(stopReason) ? stopReason.replace(/_/g, " ") : "the model gave no reply");
    const note = `(miniclaw stopped this turn: ${why})`;
    await appendOrFail(() => session.append({ role: "assistant", content: [{ type: "text", text: note }] }, { synthetic: true, ...turn.setAsideUsage() }));
  }
  return turn.end(stopReason, error, errorStatus);
}

/**
 * Appends a user message with the steering messages waiting in the inbox after its content
 * (one record, carrying their ids, so each is delivered once). Without `message`, appends the
 * steering alone when there is any, and resolves `false` when there was none.
 */
export async function appendSteered(session: SessionHandle, rt: TurnSetup, message?: MessageParam): Promise<string | undefined | false> {
  const steering = await takeSteering(rt.inbox, session, rt.emit);
  if (!message && !steering) return false;
  const base = message ? (typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content) : [];
  const content = [...base, ...(steering?.blocks ?? [])];
  const unwritten = await appendOrFail(() => session.append({ role: "user", content }, steering ? { steerIds: steering.ids } : {}));
  if (!unwritten) await steering?.delivered();
  return unwritten;
}

/** Runs an append; a failure (disk full, permissions) becomes a one-line error instead of a throw. */
export async function appendOrFail(write: () => Promise<void>): Promise<string | undefined> {
  try {
    await write();
    return undefined;
  } catch (error) {
    return `could not write the session: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * Checks the structured answer of a turn that asked for one. Valid: stored as an output record
 * and the turn ends. Invalid: the model is told what was wrong and answers again, up to
 * `outputRetries` times; then the turn ends `output_invalid`. Never returned as a success.
 */
export async function settleOutput(rt: TurnSetup, session: SessionHandle, turn: TurnState, stop: StopReason, answer: string): Promise<{ end: TurnResult } | { again: true }> {
  const checked = rt.output!.check(answer);
  if (!checked.ok && turn.outputRetries >= rt.outputRetries) {
    const tries = rt.outputRetries + 1;
    const why = `the answer did not match the output schema (${tries} answer${tries === 1 ? "" : "s"} checked): ${checked.problem}`;
    return { end: await finish(session, turn, "output_invalid", why) };
  }
  const unwritten = await appendOrFail(() =>
    checked.ok ? session.appendOutput(checked.value) : session.append({ role: "user", content: [{ type: "text", text: correctionText(checked.problem) }] }),
  );
  if (unwritten) return { end: await finish(session, turn, "error", unwritten) };
  if (!checked.ok) {
    turn.outputRetries++;
    turn.text = "";
    return { again: true };
  }
  turn.output = checked.value;
  return { end: await finish(session, turn, stop) };
}
