// Rule matching: which rule answers a request, and how many times each rule may still fire.
import { lastToolResults, lastUserText, systemText } from "./conversation.js";
import type { Match, MatchFields, RecordedRequest, Rule } from "./types.js";

function testText(pattern: string | RegExp, text: string): boolean {
  if (typeof pattern === "string") return text.includes(pattern);
  pattern.lastIndex = 0;
  return pattern.test(text);
}

function matchesFields(fields: MatchFields, req: RecordedRequest): boolean {
  if (fields.userText !== undefined && !testText(fields.userText, lastUserText(req.body))) return false;
  if (fields.system !== undefined && !testText(fields.system, systemText(req.body))) return false;
  const wanted = fields.toolResult;
  if (wanted === undefined) return true;
  return lastToolResults(req.body).some(
    (r) =>
      (wanted.name === undefined || r.name === wanted.name) &&
      (wanted.content === undefined || testText(wanted.content, r.text)),
  );
}

/** True when `match` selects the request; an absent match selects everything. */
export function matchesRequest(match: Match | undefined, req: RecordedRequest): boolean {
  if (match === undefined) return true;
  if (typeof match === "function") return match(req);
  if (typeof match === "string" || match instanceof RegExp) return testText(match, lastUserText(req.body));
  return matchesFields(match, req);
}

/**
 * Checks the script when the server starts, so a mistake fails the test at once
 * rather than as a confusing reply later. Throws a TypeError naming the rule.
 */
export function checkRules(rules: readonly Rule[]): void {
  rules.forEach((rule, i) => {
    if (rule.reply === undefined && rule.fault === undefined) {
      throw new TypeError(`scripted model: rule ${i} needs a reply or a fault`);
    }
    if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 0)) {
      throw new TypeError(`scripted model: rule ${i} has times ${String(rule.times)}; use a whole number >= 0`);
    }
  });
}

/** The rules of one server and the uses left of each; picking a rule uses it up once. */
export class RuleBook {
  readonly #rules: readonly Rule[];
  readonly #used: number[];

  constructor(rules: readonly Rule[]) {
    checkRules(rules);
    this.#rules = rules;
    this.#used = rules.map(() => 0);
  }

  /**
   * The index of the first rule at or after `from` that matches and has uses
   * left, counting the use; -1 when none does. A match function that throws
   * propagates its error, prefixed with the rule's index.
   */
  take(req: RecordedRequest, from = 0): number {
    for (let i = from; i < this.#rules.length; i++) {
      const rule = this.#rules[i];
      const used = this.#used[i] ?? 0;
      if (!rule || (rule.times !== undefined && used >= rule.times)) continue;
      if (!matchesOrExplains(rule.match, req, i)) continue;
      this.#used[i] = used + 1;
      return i;
    }
    return -1;
  }

  /** The rule at `index`. */
  rule(index: number): Rule | undefined {
    return this.#rules[index];
  }
}

function matchesOrExplains(match: Match | undefined, req: RecordedRequest, index: number): boolean {
  try {
    return matchesRequest(match, req);
  } catch (error) {
    throw new Error(`match of rule ${index} threw: ${error instanceof Error ? error.message : String(error)}`);
  }
}
