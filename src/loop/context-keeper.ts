// Keeps a turn's history within the context window: compaction when it grows, trimming old tool results as a fallback.
import { trimOldToolResults } from "../sessions/compaction.js";
import type { LoadedSession } from "../sessions/store.js";
import { estimateTokens, sessionContextSize } from "../sessions/tokens.js";
import type { MessageParam, Usage } from "../types.js";
import { compactSession } from "./compact.js";
import type { TurnRuntime } from "./options.js";

/** When trimming is the fallback: the newest results kept whole, older ones cut to this size. */
const TRIM = { keepRecent: 6, maxChars: 2_000 };

/**
 * The history of one turn and what is known of its size. `fit()` runs before each
 * request: past the threshold it compacts (once per turn if the summary fails); when
 * compaction is impossible or failed, old tool results are trimmed in what is sent
 * (never in the file), and only a request that still cannot fit is refused.
 */
export class ContextKeeper {
  history: MessageParam[];
  private lastUsage: { usage: Usage; index: number } | undefined;
  private trimmed = false;
  private compactionFailed = false;
  private readonly fixedPart: unknown;

  constructor(
    private readonly rt: TurnRuntime,
    private readonly key: string,
    session: LoadedSession,
    /** Receives the usage of each summary request, which the turn counts in its cost. */
    private readonly onUsage: (usage: Usage) => void,
  ) {
    this.history = [...session.messages];
    this.lastUsage = session.lastUsage;
    this.fixedPart = { system: rt.systemPrompt, tools: [...rt.tools.values()].map((t) => t.inputSchema) };
  }

  /** Appends a message that was just written to the session, with its response's usage. */
  push(message: MessageParam, usage?: Usage): void {
    if (usage) this.lastUsage = { usage, index: this.history.length };
    this.history.push(message);
  }

  /** The messages to send: the history, with old tool results trimmed once that became necessary. */
  toSend(): MessageParam[] {
    return this.trimmed ? trimOldToolResults(this.history, TRIM) : this.history;
  }

  /** Estimated size of the next request, in tokens. */
  size(): number {
    const exact = sessionContextSize({ messages: this.history, lastUsage: this.lastUsage }, this.fixedPart);
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
      store: this.rt.store,
      key: this.key,
      session: await this.rt.store.load(this.key),
      tokensBefore: size,
      reason: reason ?? `the context reached ${size} tokens (threshold ${this.rt.compactAt})`,
      signal: this.rt.signal,
      emit: this.rt.emit,
      now: () => this.rt.clock.now(),
    });
    if (outcome.usage) this.onUsage(outcome.usage);
    if (outcome.compacted) {
      this.history = [...outcome.session.messages];
      this.lastUsage = undefined;
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
