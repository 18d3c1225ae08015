// Keeps a turn's history within the context window: compaction (the pure plan from sessions/, the model's summary, one record appended), trimming old tool results as the fallback.
import { describeError } from "../model/client.js";
import { addUsage, fromApiUsage, ZERO_USAGE } from "../model/usage.js";
import { buildSummaryRequestText, compactionRecordFor, KEEP_SHARE_OF_WINDOW, planCompaction, splitForSummary, SUMMARY_SYSTEM_PROMPT, trimOldToolResults } from "../sessions/compaction.js";
import type { MessageRecord } from "../sessions/records.js";
import type { SessionHandle } from "../sessions/session-handle.js";
import { CHARS_PER_TOKEN, contextWindowFor, estimateTokens, sessionContextSize } from "../sessions/compaction.js";
import type { MessageParam, Usage } from "../types.js";
import { runHook } from "./turn-options.js";
import type { TurnSetup } from "./turn-setup.js";

const SUMMARY_MAX_TOKENS = 4096;
/** When trimming is the fallback: the newest results kept whole, older ones cut to this size. */
const TRIM = { keepRecent: 6, maxChars: 2_000 };

/** Past the threshold `fit()` compacts (once per turn if the summary fails); failing that, old tool results are trimmed in what is sent (never in the file); a request that still cannot fit is refused. */
export class ContextKeeper {
  private trimmed = false;
  private compactionFailed = false;
  private readonly fixedPart: unknown;

  constructor(
    private readonly rt: TurnSetup,
    private readonly handle: SessionHandle,
    /** Receives the usage of each summary request, which the turn counts in its cost. */
    private readonly onUsage: (usage: Usage) => void,
  ) {
    this.fixedPart = { system: rt.systemPrompt, tools: [...rt.firstTools.values()].map((t) => t.inputSchema) };
  }

  /** Why a new user message could never fit beside the system prompt, tools, a summary and the reply, or undefined; checked before it is stored. */
  oversized(message: MessageParam): string | undefined {
    const tokens = estimateTokens(message);
    const room = this.rt.contextWindow - estimateTokens(this.fixedPart) - this.rt.maxTokens - SUMMARY_MAX_TOKENS;
    if (tokens <= room) return undefined;
    const chars = typeof message.content === "string" ? message.content.length : message.content.reduce((n, b) => n + (b.type === "text" ? b.text.length : 0), 0);
    return (
      `the message is too large: about ${tokens} tokens (${chars} characters), and at most about ${Math.max(0, room)} tokens ` +
      `fit the model's ${this.rt.contextWindow}-token window beside the system prompt, tools and reply; ` +
      "send a shorter message, or save the text to a file and ask about the file"
    );
  }

  /** The messages to send: the history as it is, with old tool results trimmed once that became necessary. */
  toSend(): MessageParam[] {
    const { messages } = this.handle.session;
    return this.trimmed ? trimOldToolResults(messages, TRIM) : messages;
  }

  /** Makes the next request fit; `reason` forces a compaction (the API said the prompt is too long). Resolves to an error line when it cannot. */
  async fit(reason?: string): Promise<string | undefined> {
    const exact = sessionContextSize(this.handle.session, this.fixedPart);
    const size = this.trimmed ? Math.min(exact, estimateTokens(this.toSend()) + estimateTokens(this.fixedPart)) : exact;
    if (reason === undefined && (size <= this.rt.compactAt || this.compactionFailed)) return undefined;
    const why = reason ?? `the context reached ${size} tokens (threshold ${this.rt.compactAt})`;
    const { hooks, agent, client, model, signal, emit } = this.rt;
    await runHook("onBeforeCompact", hooks?.onBeforeCompact && (() => hooks.onBeforeCompact!({ sessionKey: this.handle.key, agentId: agent.id, tokensBefore: size, reason: why })), emit);
    const now = (): number => this.rt.runtime.clock.now();
    const outcome = await compactSession({ client, model, session: this.handle, tokensBefore: size, reason: why, signal, emit, now });
    if (outcome.usage) this.onUsage(outcome.usage);
    if (outcome.compacted) {
      this.trimmed = false;
      return undefined;
    }
    this.compactionFailed = true;
    this.trimmed = true;
    const trimmedSize = estimateTokens(this.toSend()) + estimateTokens(this.fixedPart);
    const fits = reason === undefined ? trimmedSize < this.rt.contextWindow : trimmedSize < size;
    emit({ type: "warning", message: `compaction skipped: ${outcome.reason}${fits ? "; old tool results are trimmed in what is sent, and the turn goes on" : ""}` });
    return fits ? undefined : `the conversation no longer fits the model's context window and compaction failed: ${outcome.reason}`;
  }
}

/** A compaction's inputs: `tokensBefore` (the size that triggered it) is for the record; `keepTokens` default a quarter of the model's window. */
type CompactInput = Pick<TurnSetup, "client" | "model" | "signal" | "emit"> & { session: SessionHandle; tokensBefore: number; reason: string; now: () => number; keepTokens?: number };

/** Summarises the older part of a session into a compaction record (the old lines stay). Never throws: a failure is `{ compacted: false, reason }`, the view unchanged. */
export async function compactSession(input: CompactInput): Promise<{ compacted: true; usage: Usage } | { compacted: false; reason: string; usage?: Usage }> {
  const keepTokens = input.keepTokens ?? Math.floor(contextWindowFor(input.model) * KEEP_SHARE_OF_WINDOW);
  const { session } = input.session;
  const plan = planCompaction(session.records, { keepTokens });
  if (!plan) return { compacted: false, reason: "nothing can be summarised without splitting the current turn" };
  const written = await summarise(input, plan.toSummarize, session.compaction?.summary);
  if ("failed" in written) return { compacted: false, reason: written.failed, ...(written.usage && { usage: written.usage }) };
  const { summary, usage } = written;
  // The skills loaded with load_skill before the cut, and those a previous compaction named.
  const blocks = plan.toSummarize.flatMap(({ message }) => (message.role === "assistant" && typeof message.content !== "string" ? message.content : []));
  const loaded = blocks.map((b) => (b.type === "tool_use" && b.name === "load_skill" ? (b.input as { name?: unknown }).name : undefined));
  const skills = [...new Set([...(session.compaction?.skills ?? []), ...loaded.filter((name): name is string => typeof name === "string")])].sort();
  const text = skills.length > 0 ? `${summary}\n\nSkills loaded before this point (load them again with load_skill when needed): ${skills.join(", ")}` : summary;
  const mode = session.mode;
  const record = { ...compactionRecordFor(plan, text, { ts: input.now(), tokensBefore: input.tokensBefore, skills }), usage, model: input.model, ...(mode && { mode }) };
  const unwritten = await input.session.compact(record).then(() => undefined, (error: unknown) => `the compaction could not be written: ${describeError(error)}`);
  if (unwritten) return { compacted: false, reason: unwritten, usage };
  input.emit({ type: "compaction", summaryTokens: Math.ceil(text.length / 4), replacedMessages: record.replacedMessages, reason: input.reason });
  return { compacted: true, usage };
}

/** The model's summary of `records` over `previous`: in groups that each fit half of what the window leaves (four characters a token is rough), with every request's usage. */
async function summarise(input: CompactInput, records: MessageRecord[], previous: string | undefined): Promise<{ summary: string; usage: Usage } | { failed: string; usage?: Usage }> {
  let summary = previous;
  let usage: Usage | undefined;
  const groupChars = Math.floor(((contextWindowFor(input.model) - SUMMARY_MAX_TOKENS) / 2) * CHARS_PER_TOKEN);
  for (const group of splitForSummary(records, groupChars)) {
    try {
      const messages = [{ role: "user" as const, content: buildSummaryRequestText(group, summary) }];
      const response = await input.client.messages.create({ model: input.model, max_tokens: SUMMARY_MAX_TOKENS, system: SUMMARY_SYSTEM_PROMPT, messages }, { signal: input.signal });
      usage = addUsage(usage ?? ZERO_USAGE, fromApiUsage(response.usage));
      summary = response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n").trim();
    } catch (error) {
      return { failed: `the summary request failed: ${describeError(error)}`, ...(usage && { usage }) };
    }
    if (!summary) return { failed: "the model wrote an empty summary", ...(usage && { usage }) };
  }
  return summary && usage ? { summary, usage } : { failed: "there was nothing to summarise" };
}
