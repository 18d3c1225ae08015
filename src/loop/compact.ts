// Compaction as the loop does it: the pure plan from sessions/, the summary written by the model, one record appended.
import type Anthropic from "@anthropic-ai/sdk";
import { describeError } from "../model/api-error.js";
import { buildSummaryRequestText, compactionRecordFor, KEEP_SHARE_OF_WINDOW, planCompaction, splitForSummary, SUMMARY_SYSTEM_PROMPT } from "../sessions/compaction.js";
import type { MessageRecord } from "../sessions/records.js";
import type { SessionHandle } from "../sessions/session-handle.js";
import { CHARS_PER_TOKEN, contextWindowFor } from "../sessions/tokens.js";
import { addUsage, fromApiUsage, ZERO_USAGE } from "../model/usage.js";
import type { EventSink, Usage } from "../types.js";

/** Output tokens allowed for a summary. */
export const SUMMARY_MAX_TOKENS = 4096;

export interface CompactInput {
  client: Anthropic;
  model: string;
  /** The open session; its view is replaced when the compaction is written. */
  session: SessionHandle;
  /** The context size that triggered it, for the record. */
  tokensBefore: number;
  reason: string;
  signal: AbortSignal;
  emit: EventSink;
  now: () => number;
  /** Tokens to keep verbatim; default a quarter of the model's window. */
  keepTokens?: number;
}

/** What happened; `usage` is that of the summary request whenever one was answered. */
export type CompactOutcome =
  | { compacted: true; usage: Usage }
  | { compacted: false; reason: string; usage?: Usage };

/**
 * Summarises the older part of a session and appends a compaction record; the old
 * lines stay in the file. Never throws: a session with nothing to cut, a failing
 * summary call or a failing write resolves `{ compacted: false, reason }` and the
 * session's view is unchanged.
 */
export async function compactSession(input: CompactInput): Promise<CompactOutcome> {
  const keepTokens = input.keepTokens ?? Math.floor(contextWindowFor(input.model) * KEEP_SHARE_OF_WINDOW);
  const { session } = input.session;
  const plan = planCompaction(session.records, { keepTokens });
  if (!plan) return { compacted: false, reason: "nothing can be summarised without splitting the current turn" };
  const written = await summarise(input, plan.toSummarize, session.compaction?.summary);
  if ("failed" in written) return { compacted: false, reason: written.failed, ...(written.usage && { usage: written.usage }) };
  const { summary, usage } = written;
  const skills = loadedSkills(plan.toSummarize, session.compaction?.skills);
  const text = skills.length > 0 ? `${summary}\n\nSkills loaded before this point (load them again with load_skill when needed): ${skills.join(", ")}` : summary;
  const mode = session.mode;
  const record = { ...compactionRecordFor(plan, text, { ts: input.now(), tokensBefore: input.tokensBefore, skills }), usage, model: input.model, ...(mode && { mode }) };
  try {
    await input.session.compact(record);
  } catch (error) {
    return { compacted: false, reason: `the compaction could not be written: ${describeError(error)}`, usage };
  }
  input.emit({ type: "compaction", summaryTokens: Math.ceil(text.length / 4), replacedMessages: record.replacedMessages, reason: input.reason });
  return { compacted: true, usage };
}

/**
 * The model's summary of `records`, updating `previous`. A transcript too long for one
 * request is summarised in groups that each fit the window, in order, each updating
 * the summary so far. Resolves to the summary and the usage of every request made.
 */
async function summarise(input: CompactInput, records: MessageRecord[], previous: string | undefined): Promise<{ summary: string; usage: Usage } | { failed: string; usage?: Usage }> {
  let summary = previous;
  let usage: Usage | undefined;
  for (const group of splitForSummary(records, summaryRequestChars(input.model))) {
    try {
      const response = await input.client.messages.create(
        {
          model: input.model,
          max_tokens: SUMMARY_MAX_TOKENS,
          system: SUMMARY_SYSTEM_PROMPT,
          messages: [{ role: "user", content: buildSummaryRequestText(group, summary) }],
        },
        { signal: input.signal },
      );
      usage = addUsage(usage ?? ZERO_USAGE, fromApiUsage(response.usage));
      summary = response.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n").trim();
    } catch (error) {
      return { failed: `the summary request failed: ${describeError(error)}`, ...(usage && { usage }) };
    }
    if (!summary) return { failed: "the model wrote an empty summary", ...(usage && { usage }) };
  }
  return summary && usage ? { summary, usage } : { failed: "there was nothing to summarise" };
}

/**
 * The most transcript one summary request carries, in characters: half of what the
 * window leaves beside the summary's own output, since the estimate of four characters
 * a token is rough (code and other scripts take more tokens).
 */
function summaryRequestChars(model: string): number {
  return Math.floor(((contextWindowFor(model) - SUMMARY_MAX_TOKENS) / 2) * CHARS_PER_TOKEN);
}

/** Names of skills loaded with load_skill in these records, plus those a previous compaction named. */
function loadedSkills(records: MessageRecord[], previous: string[] = []): string[] {
  const names = new Set(previous);
  for (const { message } of records) {
    if (message.role !== "assistant" || typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_use" && block.name === "load_skill") {
        const name = (block.input as { name?: unknown }).name;
        if (typeof name === "string") names.add(name);
      }
    }
  }
  return [...names].sort();
}
