// The state of one turn (counts, brakes, the result it ends with), and what the loop writes to the session besides responses.
import { messageOf } from "../errors.js";
import { addUsage, estimateCostUsd, ZERO_USAGE } from "../model/usage.js";
import type { SessionHandle } from "../sessions/session-handle.js";
import type { ApiMessage, ContentBlockParam, EventSink, MessageParam, PermissionModeName, StopReason, ToolUseBlock, TurnResult, Usage } from "../types.js";
import { MAX_TOKENS_CEILING, type SharedBrakes, type TurnSetup } from "./turn-setup.js";

/** Everything a turn counts and decides as it goes; `run-turn.ts` reads and updates it between requests. */
export class TurnState {
  usage: Usage = ZERO_USAGE;
  costUsd = 0;
  iterations = 0;
  /** The text of the latest response that had any: the turn's answer. */
  text = "";
  /** Output tokens of the next request: doubled once when a tool call was cut off by max_tokens, up to `maxTokensCeiling` (plus the thinking budget). */
  maxTokens: number;
  readonly maxTokensCeiling: number;
  /** Set once a response was taken (not retried or dropped): the forced tool choice was for that first one only. */
  answered = false;
  /** Set once the turn compacted because the context overflowed; a second overflow ends it. */
  overflowCompacted = false;
  readonly breaker = new RepeatBreaker();
  /** Who changed the permission mode during this turn's tools: exit_plan_mode sets it; otherwise the user did. */
  modeChangedBy: "user" | "exit_plan_mode" = "user";
  /** Corrections asked for after an invalid structured answer, and the validated answer once there is one. */
  outputRetries = 0;
  output: unknown;
  /** A response paused by the API (`pause_turn`), sent back last until the message is whole; emptied when it is dropped. */
  paused: ContentBlockParam[] = [];
  /** Usage of responses not stored (a cut tool call asked again, an empty reply): the next record carries it, so the file sums the whole cost; emptied once one did. */
  unstored: { discardedUsage?: Usage } = {};

  constructor(
    private readonly rt: TurnSetup,
    private readonly identity: { sessionKey: string; agentId: string },
  ) {
    this.maxTokens = rt.maxTokens;
    this.maxTokensCeiling = MAX_TOKENS_CEILING + (typeof rt.thinking === "number" ? rt.thinking : 0);
  }

  /** Counts the usage of one response (or summary request) and reports it, with the response's model and stop reason; a subagent's counts reach its parent too. */
  count(response: Usage, message?: ApiMessage): void {
    const costUsd = estimateCostUsd(this.rt.model, response);
    this.usage = addUsage(this.usage, response);
    this.costUsd += costUsd;
    this.rt.link?.shared.cost(response, costUsd);
    this.rt.emit({ type: "usage", usage: response, costUsd, ...(message && { model: message.model, stopReason: message.stop_reason }) });
  }

  /** Counts one model request, here and in a subagent's parent. */
  request(): void {
    this.iterations++;
    this.rt.link?.shared.request();
  }

  /** Why no further request may be made: this turn's iteration brake or budget (its subagents' spending counted), or its parent's. */
  stopBefore(): [StopReason, string] | undefined {
    const own = this.ownLimit();
    if (own) return own;
    const parent = this.rt.link?.shared.spent();
    return parent && [parent[0], `the parent turn's limit: ${parent[1]}`];
  }

  private ownLimit(): [StopReason, string] | undefined {
    if (this.iterations >= this.rt.maxIterations) return ["max_iterations", `stopped after ${this.rt.maxIterations} model requests`];
    const overBudget = this.overBudget();
    return overBudget ? ["budget_exceeded", overBudget] : undefined;
  }

  overBudget(): string | undefined {
    const { maxBudgetUsd, maxOutputTokens } = this.rt;
    if (this.costUsd > maxBudgetUsd) return `the turn's estimated cost $${this.costUsd.toFixed(4)} passed its budget of $${maxBudgetUsd}`;
    if (this.usage.outputTokens > maxOutputTokens) return `the turn's ${this.usage.outputTokens} output tokens passed its budget of ${maxOutputTokens}`;
    return undefined;
  }

  /** The brakes a subagent shares: its requests and costs count here as they happen, so children running together cannot each spend what is left. */
  shareBrakes(): SharedBrakes {
    return {
      request: () => void this.iterations++,
      cost: (usage, costUsd) => {
        this.usage = addUsage(this.usage, usage);
        this.costUsd += costUsd;
      },
      spent: () => this.ownLimit(),
    };
  }

  /** Sets aside the usage of a response that will not be stored (see `unstored`). */
  setAside(response: Usage): void {
    this.unstored = { discardedUsage: addUsage(this.unstored.discardedUsage ?? ZERO_USAGE, response) };
  }

  /** Holds a paused response's content (pauses add up, their usage set aside) until `takePaused` joins its continuation to it. */
  pause(content: ContentBlockParam[], usage: Usage): void {
    this.paused = [...this.paused, ...content];
    this.setAside(usage);
  }

  takePaused(content: ContentBlockParam[]): ContentBlockParam[] {
    const whole = this.paused.length === 0 ? content : [...this.paused, ...content];
    this.paused = [];
    return whole;
  }

  /** The messages to send: with a paused response, that response last, for the model to continue. */
  withPaused(messages: MessageParam[]): MessageParam[] {
    return this.paused.length === 0 ? messages : [...messages, { role: "assistant", content: this.paused }];
  }

  /** Emits `turn_end` and returns the result. */
  end(stopReason: StopReason, error?: string, errorStatus?: number): TurnResult {
    const end = { stopReason, usage: this.usage, costUsd: this.costUsd, iterations: this.iterations, ...(error !== undefined && { error }) };
    this.rt.emit({ type: "turn_end", ...end });
    return { text: this.text, ...this.identity, ...end, ...(errorStatus !== undefined && { errorStatus }), ...(this.output !== undefined && { output: this.output }) };
  }
}

/** Identical consecutive calls allowed to run; the next one is answered with an error, the one after ends the turn. */
const REPEAT_LIMIT = 2;

/** Consecutive identical calls (same tool, same input): `check` answers the third with an error telling the model to change approach; a fourth sets `tripped`. */
class RepeatBreaker {
  private last = "";
  private count = 0;
  tripped = false;

  check(call: ToolUseBlock): string | undefined {
    // JSON with sorted keys, so `{a,b}` and `{b,a}` are the same call.
    const sorted = (_key: string, v: unknown): unknown =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v;
    const signature = `${call.name}\u0000${JSON.stringify(call.input, sorted) ?? "null"}`;
    this.count = signature === this.last ? this.count + 1 : 1;
    this.last = signature;
    if (this.count <= REPEAT_LIMIT) return undefined;
    if (this.count === REPEAT_LIMIT + 1) {
      return `You have called ${call.name} with the same input ${this.count} times in a row and got the same kind of result. Do not call it again with this input: change your approach or answer with what you have.`;
    }
    this.tripped = true;
    return `Stopped: ${call.name} was called with the same input ${this.count} times in a row. The turn has ended.`;
  }
}

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
