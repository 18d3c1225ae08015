// The state of one turn: what it has counted so far, and the result it ends with.
import { addUsage, estimateCostUsd, ZERO_USAGE } from "../model/usage.js";
import type { ContentBlockParam, MessageParam, StopReason, TurnResult, Usage } from "../types.js";
import { budgetExceeded, RepeatBreaker } from "./brakes.js";
import { MAX_TOKENS_CEILING, type SharedBrakes, type TurnSetup } from "./turn-setup.js";

/** Everything a turn counts and decides as it goes; `run-turn.ts` reads and updates it between requests. */
export class TurnState {
  usage: Usage = ZERO_USAGE;
  costUsd = 0;
  /** Model requests made so far. */
  iterations = 0;
  /** The text of the latest response that had any: the turn's answer. */
  text = "";
  /** Output tokens of the next request: doubled once when a tool call was cut off by max_tokens. */
  maxTokens: number;
  /** The most `maxTokens` may grow to: the ceiling plus the thinking budget, which counts toward max_tokens. */
  readonly maxTokensCeiling: number;
  /** Set once a response was taken (not retried or dropped): the forced tool choice was for that first one only. */
  answered = false;
  /** Set once the turn compacted because the context overflowed; a second overflow ends it. */
  overflowCompacted = false;
  readonly breaker = new RepeatBreaker();
  /** Who changed the permission mode during this turn's tools: exit_plan_mode sets it; otherwise the user did. */
  modeChangedBy: "user" | "exit_plan_mode" = "user";
  /** Corrections asked for after an invalid structured answer. */
  outputRetries = 0;
  /** The validated structured answer, once there is one. */
  output: unknown;
  /** The content of a response paused by the API (`pause_turn`), sent back last until the message is whole. */
  private paused: ContentBlockParam[] = [];
  /**
   * Usage of responses that were not stored (a tool call cut off and asked again, an
   * empty reply). It rides on the next assistant record as `discardedUsage`, so the
   * session file alone still sums the whole cost.
   */
  private unstored: Usage | undefined;

  constructor(
    private readonly rt: TurnSetup,
    private readonly identity: { sessionKey: string; agentId: string },
  ) {
    this.maxTokens = rt.maxTokens;
    this.maxTokensCeiling = MAX_TOKENS_CEILING + (typeof rt.thinking === "number" ? rt.thinking : 0);
  }

  /** Counts the usage of one response (or summary request) and reports it; a subagent's counts reach its parent too. */
  count(response: Usage): void {
    const costUsd = estimateCostUsd(this.rt.model, response);
    this.usage = addUsage(this.usage, response);
    this.costUsd += costUsd;
    this.rt.link?.shared.cost(response, costUsd);
    this.rt.emit({ type: "usage", usage: response, costUsd });
  }

  /** Counts one model request, here and, for a subagent, in its parent's brake. */
  request(): void {
    this.iterations++;
    this.rt.link?.shared.request();
  }

  /**
   * Why no further request may be made, as a stop reason and a line: this turn's iteration brake or
   * budget (spent by its subagents too), or, for a subagent, its parent's limits.
   */
  stopBefore(): [StopReason, string] | undefined {
    const own = this.ownLimit();
    if (own) return own;
    const parent = this.rt.link?.shared.spent();
    return parent && [parent[0], `the parent turn's limit: ${parent[1]}`];
  }

  /** This turn's own iteration brake or budget, when reached (its subagents' spending counted). */
  private ownLimit(): [StopReason, string] | undefined {
    if (this.iterations >= this.rt.maxIterations) return ["max_iterations", `stopped after ${this.rt.maxIterations} model requests`];
    const overBudget = budgetExceeded(this.usage, this.costUsd, this.rt);
    return overBudget ? ["budget_exceeded", overBudget] : undefined;
  }

  /**
   * The brakes a subagent shares with this turn: each of its requests and costs counts here as it
   * happens (its events already reported them), so children running together cannot each spend
   * what is left; `spent` says why this turn's own limits are reached, if they are.
   */
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

  /** Remembers the usage of a response that will not be stored. */
  setAside(response: Usage): void {
    this.unstored = addUsage(this.unstored ?? ZERO_USAGE, response);
  }

  /** The usage set aside so far, as the next assistant record carries it. */
  setAsideUsage(): { discardedUsage?: Usage } {
    return this.unstored ? { discardedUsage: this.unstored } : {};
  }

  /** Forgets the usage set aside, once a record carrying it was written. */
  clearSetAside(): void {
    this.unstored = undefined;
  }

  /** Holds a paused response's content (and sets its usage aside) until its continuation arrives; pauses add up. */
  pause(content: ContentBlockParam[], usage: Usage): void {
    this.paused = [...this.paused, ...content];
    this.setAside(usage);
  }

  /** Forgets a paused response that will not be continued (its usage stays set aside). */
  dropPaused(): void {
    this.paused = [];
  }

  /** The messages to send: with a paused response, that response last, for the model to continue. */
  withPaused(messages: MessageParam[]): MessageParam[] {
    return this.paused.length === 0 ? messages : [...messages, { role: "assistant", content: this.paused }];
  }

  /** A continuation joined to the paused content before it: one message, as the API sees it. */
  takePaused(content: ContentBlockParam[]): ContentBlockParam[] {
    const whole = this.paused.length === 0 ? content : [...this.paused, ...content];
    this.paused = [];
    return whole;
  }

  /** Ends the turn: emits `turn_end` and returns the result. */
  end(stopReason: StopReason, error?: string, errorStatus?: number): TurnResult {
    const end = { stopReason, usage: this.usage, costUsd: this.costUsd, iterations: this.iterations, ...(error !== undefined && { error }) };
    this.rt.emit({ type: "turn_end", ...end });
    return { text: this.text, ...this.identity, ...end, ...(errorStatus !== undefined && { errorStatus }), ...(this.output !== undefined && { output: this.output }) };
  }
}
