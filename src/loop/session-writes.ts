// What the loop writes to the session besides responses: the user's message with steering, mode changes, the checked structured answer, the note that ends a turn.
import { messageOf } from "../errors.js";
import type { SessionHandle } from "../sessions/session-handle.js";
import type { EventSink, MessageParam, PermissionModeName, StopReason, TurnResult } from "../types.js";
import type { TurnSetup } from "./turn-setup.js";
import type { TurnState } from "./turn-state.js";

/** Told to the model with the user's message in plan mode (never in the system prompt, which stays byte-stable for the cache). */
export const PLAN_MODE_NOTICE =
  "<context>Plan mode is on: only what reads runs; anything that writes, edits or runs a program that may change something is refused. " +
  "Investigate, then propose a plan; call exit_plan_mode with the plan when you are ready to carry it out.</context>";

/** Stops of the harness's own, named in the note that answers a turn left without a reply. */
const NOTED_STOPS: ReadonlySet<StopReason> = new Set(["aborted", "error", "max_iterations", "budget_exceeded", "repeated_tool_call", "model_context_window_exceeded"]);

/** Ends the turn; a history ending with a user message gets a note saying why it got no reply (if even that fails, the next load closes the turn). */
export async function finish(session: SessionHandle, turn: TurnState, stopReason: StopReason, error?: string, errorStatus?: number): Promise<TurnResult> {
  if (session.session.messages.at(-1)?.role === "user") {
    const why = error ?? (NOTED_STOPS.has(stopReason) ? stopReason.replace(/_/g, " ") : "the model gave no reply");
    const note = `(miniclaw stopped this turn: ${why})`;
    await appendOrFail(() => session.append({ role: "assistant", content: [{ type: "text", text: note }] }, { synthetic: true, ...turn.unstored }));
  }
  return turn.end(stopReason, error, errorStatus);
}

/** Runs an append; a failure (disk full, permissions) becomes a one-line error instead of a throw. */
export async function appendOrFail(write: () => Promise<void>): Promise<string | undefined> {
  return write().then(() => undefined, (error: unknown) => `could not write the session: ${messageOf(error)}`);
}

/** Appends `message` (if any) and the inbox's waiting steering in one record carrying their ids (each delivered once); resolves to the write's error, `false` for nothing to write. */
export async function appendSteered(session: SessionHandle, rt: TurnSetup, message?: MessageParam): Promise<string | undefined | false> {
  const steering = await takeSteering(rt, session);
  if (!message && !steering) return false;
  const base = message ? (typeof message.content === "string" ? [{ type: "text" as const, text: message.content }] : message.content) : [];
  const content = [...base, ...(steering?.blocks ?? [])];
  const unwritten = await appendOrFail(() => session.append({ role: "user", content }, steering ? { steerIds: steering.ids } : {}));
  if (!unwritten) await steering?.delivered();
  return unwritten;
}

/**
 * Takes the inbox's messages as `The user added: …` blocks, leaving out those the session already holds (a crash between the record and `delivered`
 * would deliver them again); `delivered` tells the inbox once the record is written. A failing inbox is only a warning.
 */
async function takeSteering({ inbox, emit }: TurnSetup, session: SessionHandle) {
  if (!inbox) return undefined;
  const taken = await Promise.resolve().then(() => inbox.take()).catch((error: unknown) => {
    emit({ type: "warning", message: `could not read the steering inbox (${messageOf(error)})` });
  });
  if (!taken) return undefined;
  const held = new Set(session.session.records.flatMap((record) => record.steerIds ?? []));
  const fresh = taken.filter((m) => m.text.trim() !== "" && (m.id === undefined || !held.has(m.id)));
  // Already held, or blank: nothing to send, but the inbox is told they are done with.
  const repeated = taken.flatMap((m) => (m.id !== undefined && (held.has(m.id) || m.text.trim() === "") ? [m.id] : []));
  const delivered = async (ids: string[]): Promise<void> => {
    if (ids.length === 0 || !inbox.delivered) return;
    const warn = (error: unknown): void => emit({ type: "warning", message: `could not mark steering messages delivered (${messageOf(error)}); the session records them, so they are not repeated` });
    await Promise.resolve().then(() => inbox.delivered!(ids)).catch(warn);
  };
  if (fresh.length === 0) {
    await delivered(repeated);
    return undefined;
  }
  for (const m of fresh) emit({ type: "steer", text: m.text });
  const ids = fresh.flatMap((m) => (m.id === undefined ? [] : [m.id]));
  return { blocks: fresh.map((m) => ({ type: "text" as const, text: `The user added: ${m.text}` })), ids, delivered: () => delivered([...ids, ...repeated]) };
}

/** Records the permission mode when it differs from the session's last recorded one (a new session counts as `default`), and reports it; `by` says who changed it. */
export async function recordMode(mode: PermissionModeName, session: SessionHandle, emit: EventSink, by: "user" | "exit_plan_mode"): Promise<void> {
  const previous = session.session.mode ?? "default";
  if (mode === previous) return;
  await session.appendMode(mode, by).then(
    () => emit({ type: "mode", mode, previous, by }),
    (error: unknown) => emit({ type: "warning", message: `could not record the permission mode (${messageOf(error)})` }),
  );
}

/** Checks a structured answer: valid, stored and the turn ends; invalid, the model is told why and answers again, up to `outputRetries` times, then `output_invalid`. */
export async function settleOutput(rt: TurnSetup, session: SessionHandle, turn: TurnState, stop: StopReason, answer: string): Promise<{ end: TurnResult } | { again: true }> {
  const checked = rt.output!.check(answer);
  if (!checked.ok && turn.outputRetries >= rt.outputRetries) {
    const tries = rt.outputRetries + 1;
    return { end: await finish(session, turn, "output_invalid", `the answer did not match the output schema (${tries} answer${tries === 1 ? "" : "s"} checked): ${checked.problem}`) };
  }
  const correction = checked.ok ? "" : `Your final answer did not match the required JSON schema: ${checked.problem}. Answer again with only the corrected JSON object.`;
  const unwritten = await appendOrFail(() => (checked.ok ? session.appendOutput(checked.value) : session.append({ role: "user", content: [{ type: "text", text: correction }] })));
  if (unwritten) return { end: await finish(session, turn, "error", unwritten) };
  if (checked.ok) {
    turn.output = checked.value;
    return { end: await finish(session, turn, stop) };
  }
  turn.outputRetries++;
  turn.text = "";
  return { again: true };
}
