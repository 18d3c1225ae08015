// Steering and permission modes as a turn meets them: messages the user adds while it runs, and mode changes recorded in the session.
import type { SessionHandle } from "../sessions/session-handle.js";
import type { ContentBlockParam, EventSink, PermissionModeName } from "../types.js";
import type { Inbox, SteerMessage } from "../types.js";

/** How a steering message reads in the request: neutral, so the model weighs it as the user's words. */
export function steerText(text: string): string {
  return `The user added: ${text}`;
}

/** What a drain of the inbox adds to the next user message: its text blocks and the ids that make delivery once-only. */
export interface Steering {
  blocks: ContentBlockParam[];
  ids: string[];
  /** Tells the inbox the messages are stored; call it after the record carrying them is written. */
  delivered(): Promise<void>;
}

/**
 * Takes what waits in the inbox, leaving out any message the session already holds (a crash
 * after the record was written and before the inbox heard of it would deliver it again).
 * A failing inbox is a warning: steering is never worth a broken turn.
 */
export async function takeSteering(inbox: Inbox | undefined, session: SessionHandle, emit: EventSink): Promise<Steering | undefined> {
  if (!inbox) return undefined;
  let taken: SteerMessage[];
  try {
    taken = await inbox.take();
  } catch (error) {
    emit({ type: "warning", message: `could not read the steering inbox (${error instanceof Error ? error.message : String(error)})` });
    return undefined;
  }
  const held = new Set(session.session.records.flatMap((record) => record.steerIds ?? []));
  const fresh = taken.filter((m) => m.text.trim() !== "" && (m.id === undefined || !held.has(m.id)));
  // Already held, or blank: nothing to send, but the inbox is told they are done with.
  const repeated = taken.flatMap((m) => (m.id !== undefined && (held.has(m.id) || m.text.trim() === "") ? [m.id] : []));
  if (fresh.length === 0) {
    if (repeated.length > 0) await markDelivered(inbox, repeated, emit);
    return undefined;
  }
  for (const m of fresh) emit({ type: "steer", text: m.text });
  const ids = fresh.flatMap((m) => (m.id === undefined ? [] : [m.id]));
  return {
    blocks: fresh.map((m) => ({ type: "text", text: steerText(m.text) })),
    ids,
    delivered: () => markDelivered(inbox, [...ids, ...repeated], emit),
  };
}

async function markDelivered(inbox: Inbox, ids: string[], emit: EventSink): Promise<void> {
  if (ids.length === 0 || !inbox.delivered) return;
  try {
    await inbox.delivered(ids);
  } catch (error) {
    emit({ type: "warning", message: `could not mark steering messages delivered (${error instanceof Error ? error.message : String(error)}); the session records them, so they are not repeated` });
  }
}

/**
 * Records the permission mode when it differs from the session's last recorded one (a new
 * session counts as `default`), and reports it. `by` says who changed it.
 */
export async function recordMode(mode: PermissionModeName, session: SessionHandle, emit: EventSink, by: "user" | "exit_plan_mode"): Promise<void> {
  const previous = session.session.mode ?? "default";
  if (mode === previous) return;
  try {
    await session.appendMode(mode, by);
  } catch (error) {
    emit({ type: "warning", message: `could not record the permission mode (${error instanceof Error ? error.message : String(error)})` });
    return;
  }
  emit({ type: "mode", mode, previous, by });
}

/** Told to the model with the user's message in plan mode (never in the system prompt, which stays byte-stable for the cache). */
export const PLAN_MODE_NOTICE =
  "<context>Plan mode is on: only what reads runs; anything that writes, edits or runs a program that may change something is refused. " +
  "Investigate, then propose a plan; call exit_plan_mode with the plan when you are ready to carry it out.</context>";
