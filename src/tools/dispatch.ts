// Answers every tool_use of a response: hooks, validate once, judge once at the gate, run (read-only calls together), cap, never throw.
import { cutMiddle } from "../content.js";
import { messageOf } from "../errors.js";
import type { Gate, Judged } from "../gate/context.js";
import { redactContent } from "../gate/redact.js";
import type { ToolResultBlockParam, ToolUseBlock } from "../types.js";
import { accessOf, type AnyTool, type ToolContext } from "./define.js";

/** Largest tool result sent to the model, in characters; the rest is cut with a marker. */
export const MAX_TOOL_RESULT_CHARS = 50_000;
const INTERRUPTED = "Interrupted: the user stopped this turn before the tool finished.";

/** A call as hooks see it. */
export type ToolCall = Pick<ToolUseBlock, "id" | "name" | "input">;

/** What `beforeToolUse` may answer: go on (optionally with a rewritten input), or deny with a reason. */
export type BeforeToolUseResult = void | { decision: "allow"; input?: unknown } | { decision: "deny"; reason: string };

/** Hooks for library users. Deny beats everything; a throwing hook denies the call. */
export interface ToolHooks {
  beforeToolUse?(call: ToolCall): BeforeToolUseResult | Promise<BeforeToolUseResult>;
  afterToolUse?(call: ToolCall, result: ToolResultBlockParam): ToolResultBlockParam | void | Promise<ToolResultBlockParam | void>;
}

/** What the dispatcher runs with: `context` builds one call's; `refuse` answers a call unrun (the repeat breaker, a budget stop); `secrets` never reach the model. */
interface DispatchOptions {
  tools: ReadonlyMap<string, AnyTool>;
  gate: Gate;
  context: (toolUseId: string) => ToolContext;
  signal: AbortSignal;
  hooks?: ToolHooks | undefined;
  refuse?: (call: ToolUseBlock) => string | undefined;
  secrets?: readonly string[];
  onStart?: (call: ToolUseBlock) => void;
  onResult?: (call: ToolUseBlock, result: ToolResultBlockParam) => void;
}

/**
 * Runs the calls and resolves to one tool_result per tool_use, in order. Each is parsed, its access read and the gate asked once, before `run`: one judged
 * read-only runs beside its read-only neighbours, any other alone, settled just before it runs. Every failure is an is_error result. Never rejects.
 */
export async function runToolUses(calls: readonly ToolUseBlock[], opts: DispatchOptions): Promise<ToolResultBlockParam[]> {
  const results: ToolResultBlockParam[] = [];
  let batch: Prepared[] = [];
  const flush = async (): Promise<void> => {
    results.push(...(await Promise.all(batch.map((prepared) => runOne(prepared, opts)))));
    batch = [];
  };
  for (const call of calls) {
    // Prepared in order, after every earlier call that is not read-only has finished: its hook sees their effects.
    const prepared = await prepare(call, opts);
    if ("answer" in prepared || prepared.judged.readOnly) {
      batch.push(prepared);
      continue;
    }
    await flush();
    results.push(await runOne(prepared, opts));
  }
  await flush();
  return results;
}

type Ready = { call: ToolUseBlock; tool: AnyTool; input: unknown; judged: Judged };
type Prepared = { call: ToolUseBlock; answer: ToolResultBlockParam } | Ready;

async function prepare(call: ToolUseBlock, opts: DispatchOptions): Promise<Prepared> {
  const answered = (text: string): Prepared => ({ call, answer: result(call.id, text, true) });
  if (opts.signal.aborted) return answered(INTERRUPTED);
  const refusal = opts.refuse?.(call);
  if (refusal) return answered(refusal);
  const tool = opts.tools.get(call.name);
  if (!tool) return answered(`Unknown tool "${call.name}". Available tools: ${[...opts.tools.keys()].sort().join(", ") || "none"}.`);
  const before = await runBeforeHook(opts.hooks, { id: call.id, name: call.name, input: call.input });
  if (before.deny !== undefined) return answered(`Denied: ${before.deny}`);
  const parsed = tool.input.safeParse(before.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.length ? i.path.map(String).join(".") : "input"}: ${i.message}`);
    return answered(`Invalid input for ${call.name}: ${issues.join("; ")}. Fix the input and call it again.`);
  }
  try {
    const access = await accessOf(tool, parsed.data, opts.context(call.id));
    return { call, tool, input: parsed.data, judged: await opts.gate.check({ id: call.id, tool: call.name, input: parsed.data, access, ...(tool.approvalReason !== undefined && { reason: tool.approvalReason }) }) };
  } catch (error) {
    // A throwing access declaration refuses the call: the check fails closed.
    return answered(`Error: Not run: the permission check of ${call.name} failed (${messageOf(error)}).`);
  }
}

/** Answers one prepared call: runs it with a signal of its own, then redacts, caps, and passes it through the after-hook. */
async function runOne(prepared: Prepared, opts: DispatchOptions): Promise<ToolResultBlockParam> {
  const { call } = prepared;
  opts.onStart?.(call);
  let answer: ToolResultBlockParam;
  if ("answer" in prepared) answer = redact(prepared.answer, opts.secrets);
  else if (opts.signal.aborted) answer = result(call.id, INTERRUPTED, true);
  else {
    // A signal of its own, which adds no listener to the turn's (Node warns past ten on one signal, and calls run in parallel).
    answer = await approveAndRun(prepared, { ...opts.context(call.id), signal: AbortSignal.any([opts.signal]) });
    // Redacted before the cap, which could otherwise cut a credential into halves too short to know.
    answer = capResult(redact(answer, opts.secrets));
    answer = redact(await runAfterHook(opts.hooks, { id: call.id, name: call.name, input: prepared.input }, answer), opts.secrets);
  }
  opts.onResult?.(call, answer);
  return answer;
}

/** Settles the gate's judgement, then runs the tool with what it granted; an interrupt answers at once, even while the approver is asked. */
async function approveAndRun({ tool, input, judged }: Ready, context: ToolContext): Promise<ToolResultBlockParam> {
  const { toolUseId: id, signal } = context;
  // Removed once the call is answered: Node keeps a signal from AbortSignal.any alive while it has an abort listener.
  const settled = new AbortController();
  const interrupted = new Promise<ToolResultBlockParam>((resolve) => {
    signal.addEventListener("abort", () => resolve(result(id, INTERRUPTED, true)), { once: true, signal: settled.signal });
  });
  const ran = (async (): Promise<ToolResultBlockParam> => {
    try {
      const decision = await judged.settle();
      if (!decision.allowed) return result(id, `Error: ${decision.reason}`, true);
      // An approval that came after the interrupt must not start the tool: the model was told it did not run.
      if (signal.aborted) return result(id, INTERRUPTED, true);
      const { allowed: _allowed, ...grant } = decision;
      const output = await tool.run(input, { ...context, grant });
      return typeof output === "string" ? result(id, output, false) : { type: "tool_result", tool_use_id: id, content: output };
    } catch (error) {
      return result(id, signal.aborted ? INTERRUPTED : `Error: ${messageOf(error)}`, true);
    }
  })();
  try {
    return await (tool.waitsOnInterrupt === true ? ran : Promise.race([ran, interrupted]));
  } finally {
    settled.abort();
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

/** A tool_result with one text block (never empty: the API rejects empty text). */
function result(id: string, text: string, isError: boolean): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: id, content: [{ type: "text", text: text.trim() ? text : "(no output)" }], ...(isError && { is_error: true }) };
}

function redact(answer: ToolResultBlockParam, secrets: readonly string[] = []): ToolResultBlockParam {
  if (answer.content === undefined) return answer;
  const content = redactContent(answer.content, secrets);
  return content === answer.content ? answer : { ...answer, content };
}

function capResult(answer: ToolResultBlockParam, max = MAX_TOOL_RESULT_CHARS): ToolResultBlockParam {
  if (!Array.isArray(answer.content)) return answer;
  const marker = (length: number) => (cut: number) => `\n\n[... ${cut} characters cut: the result was ${length} characters, the limit is ${max} ...]\n\n`;
  return { ...answer, content: answer.content.map((b) => (b.type !== "text" || b.text.length <= max ? b : { ...b, text: cutMiddle(b.text, max, marker(b.text.length)) })) };
}
