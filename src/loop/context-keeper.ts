// Keeps a turn's history within the context window: compaction when it grows, trimming old tool results as a fallback.
import { trimOldToolResults } from "../sessions/compaction.js";
import type { SessionHandle } from "../sessions/session-handle.js";
import { estimateTokens, sessionContextSize } from "../sessions/tokens.js";
import type { MessageParam, Usage } from "../types.js";
import { compactSession, SUMMARY_MAX_TOKENS } from "./compact.js";
import { runHook } from "./hooks.js";
import type { TurnSetup } from "./turn-setup.js";

/** When trimming is the fallback: the newest results kept whole, older ones cut to this size. */
const TRIM = { keepRecent: 6, maxChars: 2_000 };

/**
 * Keeps the requests of one turn within the context window. `fit()` runs before
 * each request: past the threshold it compacts (once per turn if the summary
 * fails); when compaction is impossible or failed, old tool results are trimmed in
 * what is sent (never in the file), and only a request that still cannot fit is refused.
 */
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

  /**
   * Why a new user message can never be sent, or undefined when it can: with the
   * system prompt, the tools, room for a compaction summary and for the reply, it
   * would pass the model's window, so no compaction could ever make it fit. Checked
   * before the message is stored, so such a message never enters the session.
   */
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

  /** Estimated size of the next request, in tokens. */
  size(): number {
    const exact = sessionContextSize(this.handle.session, this.fixedPart);
    return this.trimmed ? Math.min(exact, estimateTokens(this.toSend()) + estimateTokens(this.fixedPart)) : exact;
  }

  /**
   * Makes the next request fit. `reason` forces a compaction (the API said the prompt
   * was too long). Resolves to an error sentence when the request cannot be made to fit.
   */
  async fit(reason?: string): Promise<string | undefined> {
    const size = this.size();
    const due = reason !== undefined || (size > this.rt.compactAt && !this.compactionFailed);
    if (!due) return undefined;
    const why = reason ?? `the context reached ${size} tokens (threshold ${this.rt.compactAt})`;
    const hooks = this.rt.hooks;
    await runHook("onBeforeCompact", hooks?.onBeforeCompact && (() => hooks.onBeforeCompact!({ sessionKey: this.handle.key, agentId: this.rt.agent.id, tokensBefore: size, reason: why })), this.rt.emit);
    const outcome = await compactSession({
      client: this.rt.client,
      model: this.rt.model,
      session: this.handle,
      tokensBefore: size,
      reason: why,
      signal: this.rt.signal,
      emit: this.rt.emit,
      now: () => this.rt.runtime.clock.now(),
    });
    if (outcome.usage) this.onUsage(outcome.usage);
    if (outcome.compacted) {
      this.trimmed = false;
      return undefined;
    }
    this.compactionFailed = true;
    this.trimmed = true;
    const trimmedSize = estimateTokens(this.toSend()) + estimateTokens(this.fixedPart);
    const fits = reason === undefined ? trimmedSize < this.rt.contextWindow : trimmedSize < size;
    this.rt.emit({
      type: "warning",
      message: `compaction skipped: ${outcome.reason}${fits ? "; old tool results are trimmed in what is sent, and the turn goes on" : ""}`,
    });
    return fits ? undefined : `the conversation no longer fits the model's context window and compaction failed: ${outcome.reason}`;
  }
}
