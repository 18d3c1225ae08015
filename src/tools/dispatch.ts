// Answers every tool_use of a response: hooks, validate once, judge once at the gate, run (read-only calls together), cap, never throw.
import { cutMiddle } from "../content.js";
import type { Gate, Judged } from "../gate/context.js";
import { redactContent } from "../gate/redact.js";
import type { ToolResultBlockParam, ToolUseBlock } from "../types.js";
import { accessOf, type AnyTool, type ToolContext, type ToolOutput } from "./define.js";

/** Largest tool result sent to the model, in characters; the rest is cut with a marker. */
export const MAX_TOOL_RESULT_CHARS = 50_000;

export const INTERRUPTED_TEXT = "Interrupted: the user stopped this turn before the tool finished.";

/** A call as hooks see it. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** What `beforeToolUse` may answer: go on (optionally with a rewritten input), or deny with a reason. */
export type BeforeToolUseResult = void | { decision: "allow"; input?: unknown } | { decision: "deny"; reason: string };

/** Hooks for library users. Deny beats everything; a throwing hook denies the call. */
export interface ToolHooks {
  beforeToolUse?(call: ToolCall): BeforeToolUseResult | Promise<BeforeToolUseResult>;
  afterToolUse?(call: ToolCall, result: ToolResultBlockParam): ToolResultBlockParam | void | Promise<ToolResultBlockParam | void>;
}

export interface DispatchOptions {
  tools: ReadonlyMap<string, AnyTool>;
  /** Judges each call once, before it runs. */
  gate: Gate;
  /** The context of one call (it carries the call's toolUseId). */
  context: (toolUseId: string) => ToolContext;
  signal: AbortSignal;
  hooks?: ToolHooks | undefined;
  /** Answers a call without running it (the repeated-call breaker, a budget stop). */
  refuse?: (call: ToolUseBlock) => string | undefined;
  maxResultChars?: number;
  /** Values that must never reach the model (the API key...), redacted beside credentials known by their shape. */
  secrets?: readonly string[];
  /** Told as each call starts, and each final result as it comes. */
  onStart?: (call: ToolUseBlock) => void;
  onResult?: (call: ToolUseBlock, result: ToolResultBlockParam) => void;
}

/**
 * Runs the calls and resolves to one tool_result per tool_use, in the order of the
 * calls. Each call's input is parsed once, its access read once, and the gate asked
 * once (`gate.check`), before `run`: a call it judges read-only runs alongside the
 * read-only calls next to it; any other call runs alone, and is settled (asked about,
 * when the policy says so) just before it would run. Unknown tools, invalid input, hook
 * denials, refusals, throws and interrupts become is_error results whose text tells the
 * model what happened. Never rejects.
 */
export async function runToolUses(calls: readonly ToolUseBlock[], opts: DispatchOptions): Promise<ToolResultBlockParam[]> {
  const results: ToolResultBlockParam[] = [];
  const signals = callSignals(opts.signal);
  let batch: Prepared[] = [];
  const flush = async (): Promise<void> => {
    results.push(...(await Promise.all(batch.map((prepared) => runOne(prepared, opts, signals)))));
    batch = [];
  };
  try {
    for (const call of calls) {
      // Prepared in order, after every earlier call that is not read-only has finished: its hook sees their effects.
      const prepared = await prepare(call, opts);
      if ("answer" in prepared || prepared.judged.readOnly) {
        batch.push(prepared);
        continue;
      }
      await flush();
      results.push(await runOne(prepared, opts, signals));
    }
    await flush();
    return results;
  } finally {
    signals.dispose();
  }
}

/** A signal of its own for each call (`open`, then `close` once answered), fed by one listener on the turn's signal (`dispose`). */
interface CallSignals {
  open(): { signal: AbortSignal; close(): void };
  dispose(): void;
}

/**
 * Each running call listens for an abort twice (here and in its process): on the turn's own signal,
 * twelve parallel calls would add twenty-four listeners, and Node warns past ten. So the turn's
 * signal gets one listener, which aborts every open call's signal.
 */
function callSignals(turn: AbortSignal): CallSignals {
  const open = new Set<AbortController>();
  const onAbort = (): void => {
    for (const controller of open) controller.abort(turn.reason);
  };
  turn.addEventListener("abort", onAbort, { once: true });
  return {
    open() {
      const controller = new AbortController();
      if (turn.aborted) controller.abort(turn.reason);
      open.add(controller);
      return { signal: controller.signal, close: () => void open.delete(controller) };
    },
    dispose() {
      turn.removeEventListener("abort", onAbort);
      open.clear();
    },
  };
}

/** A call ready to run (its tool, its input parsed, the gate's judgement), or already answered. */
type Prepared = { call: ToolUseBlock; answer: ToolResultBlockParam } | { call: ToolUseBlock; tool: AnyTool; input: unknown; judged: Judged };

async function prepare(call: ToolUseBlock, opts: DispatchOptions): Promise<Prepared> {
  const answered = (text: string): Prepared => ({ call, answer: result(call.id, text, true) });
  if (opts.signal.aborted) return answered(INTERRUPTED_TEXT);
  const refusal = opts.refuse?.(call);
  if (refusal) return answered(refusal);
  const tool = opts.tools.get(call.name);
  if (!tool) {
    const names = [...opts.tools.keys()].sort().join(", ");
    return answered(`Unknown tool "${call.name}". Available tools: ${names || "none"}.`);
  }
  const before = await runBeforeHook(opts.hooks, { id: call.id, name: call.name, input: call.input });
  if (before.deny !== undefined) return answered(`Denied: ${before.deny}`);
  const parsed = tool.input.safeParse(before.input);
  if (!parsed.success) return answered(`Invalid input for ${call.name}: ${describeIssues(parsed.error.issues)}. Fix the input and call it again.`);
  const context = opts.context(call.id);
  let judged: Judged;
  try {
    judged = await opts.gate.check({ id: call.id, tool: call.name, input: parsed.data, access: await accessOf(tool, parsed.data, context), ...(tool.approvalReason !== undefined && { reason: tool.approvalReason }) });
  } catch (error) {
    // A throwing access declaration refuses the call: the check fails closed.
    return answered(`Error: Not run: the permission check of ${call.name} failed (${messageOf(error)}).`);
  }
  return { call, tool, input: parsed.data, judged };
}

async function runOne(prepared: Prepared, opts: DispatchOptions, signals: CallSignals): Promise<ToolResultBlockParam> {
  opts.onStart?.(prepared.call);
  const answer = "answer" in prepared ? redact(prepared.answer, opts.secrets) : await answerCall(prepared, opts, signals);
  opts.onResult?.(prepared.call, answer);
  return answer;
}

async function answerCall(prepared: Exclude<Prepared, { answer: ToolResultBlockParam }>, opts: DispatchOptions, signals: CallSignals): Promise<ToolResultBlockParam> {
  const { call, input } = prepared;
  if (opts.signal.aborted) return result(call.id, INTERRUPTED_TEXT, true);
  const own = signals.open();
  let answer: ToolResultBlockParam;
  try {
    answer = await approveAndRun(prepared, { ...opts.context(call.id), signal: own.signal }, own.signal);
  } finally {
    own.close();
  }
  // Redacted before the cap, which could otherwise cut a credential into halves too short to know.
  answer = capResult(redact(answer, opts.secrets), opts.maxResultChars ?? MAX_TOOL_RESULT_CHARS);
  return redact(await runAfterHook(opts.hooks, { id: call.id, name: call.name, input }, answer), opts.secrets);
}

/** Asks the gate, then runs the tool with what it granted; an interrupt answers at once, even while the approver is asked. */
async function approveAndRun(prepared: { tool: AnyTool; input: unknown; judged: Judged }, context: ToolContext, signal: AbortSignal): Promise<ToolResultBlockParam> {
  const { tool, input, judged } = prepared;
  const id = context.toolUseId;
  let onAbort = (): void => {};
  const interrupted = new Promise<ToolResultBlockParam>((resolve) => {
    onAbort = () => resolve(result(id, INTERRUPTED_TEXT, true));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  const ran = (async (): Promise<ToolResultBlockParam> => {
    try {
      const decision = await judged.settle();
      if (!decision.allowed) return result(id, `Error: ${decision.reason}`, true);
      // An approval that came after the interrupt must not start the tool: the model was told it did not run.
      if (signal.aborted) return result(id, INTERRUPTED_TEXT, true);
      const { allowed: _allowed, ...grant } = decision;
      return outputResult(id, await tool.run(input, { ...context, grant }));
    } catch (error) {
      if (signal.aborted) return result(id, INTERRUPTED_TEXT, true);
      return result(id, `Error: ${messageOf(error)}`, true);
    }
  })();
  try {
    return await (tool.waitsOnInterrupt === true ? ran : Promise.race([ran, interrupted]));
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

async function runBeforeHook(hooks: ToolHooks | undefined, call: ToolCall): Promise<{ input: unknown; deny?: string }> {
  try {
    const answer = await hooks?.beforeToolUse?.(call);
    if (answer?.decision === "deny") return { input: call.input, deny: answer.reason || "a hook refused this call" };
    return { input: answer && "input" in answer ? answer.input : call.input };
  } catch (error) {
    return { input: call.input, deny: `a hook failed: ${messageOf(error)}` };
  }
}

async function runAfterHook(hooks: ToolHooks | undefined, call: ToolCall, answer: ToolResultBlockParam): Promise<ToolResultBlockParam> {
  if (!hooks?.afterToolUse) return answer;
  try {
    const rewritten = await hooks.afterToolUse(call, answer);
    return rewritten ? { ...rewritten, type: "tool_result", tool_use_id: answer.tool_use_id } : answer;
  } catch (error) {
    return result(answer.tool_use_id, `Error: the afterToolUse hook failed: ${messageOf(error)}`, true);
  }
}

function outputResult(id: string, output: ToolOutput): ToolResultBlockParam {
  return typeof output === "string" ? result(id, output, false) : { type: "tool_result", tool_use_id: id, content: output };
}

/** A tool_result with one text block (never empty: the API rejects empty text). */
export function result(id: string, text: string, isError: boolean): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: id, content: [{ type: "text", text: text.trim() ? text : "(no output)" }], ...(isError && { is_error: true }) };
}

/**
 * The result with every credential replaced by a marker naming what was removed: the environment's
 * secret values and every credential by its shape (see gate/redact.ts), in text blocks and documents.
 */
export function redact(answer: ToolResultBlockParam, secrets: readonly string[] = []): ToolResultBlockParam {
  if (answer.content === undefined) return answer;
  const content = redactContent(answer.content, secrets);
  return content === answer.content ? answer : { ...answer, content };
}

/** Cuts text content longer than `max` characters, keeping head and tail and saying how much was cut. */
export function capResult(answer: ToolResultBlockParam, max: number): ToolResultBlockParam {
  if (!Array.isArray(answer.content)) return answer;
  const content = answer.content.map((block) => {
    if (block.type !== "text" || block.text.length <= max) return block;
    const marker = (cut: number): string => `\n\n[... ${cut} characters cut: the result was ${block.text.length} characters, the limit is ${max} ...]\n\n`;
    return { ...block, text: cutMiddle(block.text, max, marker) };
  });
  return { ...answer, content };
}

function describeIssues(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  return issues.slice(0, 5).map((i) => `${i.path.length ? i.path.map(String).join(".") : "input"}: ${i.message}`).join("; ");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

