// Rule matching: which rule answers a request, and how many times each rule may still fire.
import { lastToolResults, lastUserText, systemText } from "./conversation.js";
import type { Match, RecordedRequest, Rule } from "./types.js";

function testText(pattern: string | RegExp, text: string): boolean {
  if (typeof pattern === "string") return text.includes(pattern);
  pattern.lastIndex = 0;
  return pattern.test(text);
}

/** True when `match` selects the request; an absent match selects everything. */
function matchesRequest(match: Match | undefined, req: RecordedRequest): boolean {
  if (match === undefined) return true;
  if (typeof match === "function") return match(req);
  if (typeof match === "string" || match instanceof RegExp) return testText(match, lastUserText(req.body));
  if (match.userText !== undefined && !testText(match.userText, lastUserText(req.body))) return false;
  if (match.system !== undefined && !testText(match.system, systemText(req.body))) return false;
  const wanted = match.toolResult;
  if (wanted === undefined) return true;
  return lastToolResults(req.body).some((r) => (wanted.name === undefined || r.name === wanted.name) && (wanted.content === undefined || testText(wanted.content, r.text)));
}

/** The rules of one server and the uses left of each; picking a rule uses it up once. */
export class RuleBook {
  readonly #used: number[];

  /** Checks the script at once, so a mistake fails the test there rather than as a confusing reply later: a TypeError naming the rule. */
  constructor(private readonly rules: readonly Rule[]) {
    rules.forEach((rule, i) => {
      if (rule.reply === undefined && rule.fault === undefined) throw new TypeError(`scripted model: rule ${i} needs a reply or a fault`);
      if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) {
        throw new TypeError(`scripted model: rule ${i} has times ${String(rule.times)}; use a whole number >= 0`);
      }
    });
    this.#used = rules.map(() => 0);
  }

  /**
   * The index of the first rule at or after `from` that matches and has uses left, counting the use; -1 when none
   * does. A match function that throws propagates its error, prefixed with the rule's index.
   */
  take(req: RecordedRequest, from = 0): number {
    for (let i = from; i < this.rules.length; i++) {
      const rule = this.rules[i]!;
      const used = this.#used[i]!;
      if (rule.times !== undefined && used >= rule.times) continue;
      try {
        if (!matchesRequest(rule.match, req)) continue;
      } catch (error) {
        throw new Error(`match of rule ${i} threw: ${error instanceof Error ? error.message : String(error)}`);
      }
      this.#used[i] = used + 1;
      return i;
    }
    return -1;
  }

  /** The rule at `index`. */
  rule(index: number): Rule | undefined {
    return this.rules[index];
  }
}
