// Keeps a turn's history within the context window: compaction when it grows, trimming old tool results as a fallback.
import { trimOldToolResults } from "../sessions/compaction.js";
import type { SessionHandle } from "../sessions/session-handle.js";
import { estimateTokens, sessionContextSize } from "../sessions/tokens.js";
import type { MessageParam, Usage } from "../types.js";
import { compactSession } from "./compact.js";
import type { TurnRuntime } from "./options.js";

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
    private readonly rt: TurnRuntime,
    private readonly handle: SessionHandle,
    /** Receives the usage of each summary request, which the turn counts in its cost. */
    private readonly onUsage: (usage: Usage) => void,
  ) {
    this.fixedPart = { system: rt.systemPrompt, tools: [...rt.tools.values()].map((t) => t.inputSchema) };
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
    const outcome = await compactSession({
      client: this.rt.client,
      model: this.rt.model,
      session: this.handle,
      tokensBefore: size,
      reason: reason ?? `the context reached ${size} tokens (threshold ${this.rt.compactAt})`,
      signal: this.rt.signal,
      emit: this.rt.emit,
      now: () => this.rt.clock.now(),
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
