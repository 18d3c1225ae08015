// The REPL's /effort and /thinking: how hard every agent works for the rest of the session, and whether its thinking is shown.
import { parseEffort } from "../model/settings.js";
import type { AgentConfig, Effort } from "../types.js";
import { clip } from "./render.js";

/** The effort every agent uses, and who set it; absent, each agent uses its own (SOUL.md, else the API's default). */
export interface EffortChoice {
  level: Effort;
  source: "--effort" | "/effort";
}

/** What /effort and /thinking change, kept by the REPL for its whole run. */
export interface SettingState {
  effort?: EffortChoice | undefined;
  showThinking: boolean;
}

/**
 * `/effort` shows the effort and where it comes from; `/effort LEVEL` sets it for every agent
 * until the REPL ends; `/effort default` goes back to each agent's own. Returns the line to print.
 */
export function effortCommand(args: string, state: SettingState, agents: Record<string, AgentConfig>): string {
  const word = args.trim().toLowerCase();
  if (word === "") return describeEffort(state, agents);
  if (word === "default") {
    state.effort = undefined;
    return `Effort: back to each agent's own: ${describeOwnEfforts(agents)}`;
  }
  const parsed = parseEffort(word);
  if (!parsed.ok) return `/effort ${clip(word, 40)}: ${parsed.problem.replace(/, got .*$/, "")}, or default. Usage: /effort [LEVEL|default]`;
  state.effort = { level: parsed.value, source: "/effort" };
  return `Effort: ${parsed.value} for every agent, from the next message until the REPL ends (/effort default goes back to each agent's own).`;
}

/** `/thinking show` streams the model's thinking dim; `/thinking hide` (the default) keeps one "thinking…" line; `/thinking` says which. */
export function thinkingCommand(args: string, state: SettingState): string {
  const word = args.trim().toLowerCase();
  if (word === "show" || word === "hide") state.showThinking = word === "show";
  else if (word !== "") return `Usage: /thinking show|hide`;
  return state.showThinking
    ? "Thinking: shown, streamed dim before each reply (/thinking hide keeps one line)."
    : 'Thinking: hidden, one dim "thinking…" line while the model thinks (/thinking show streams it).';
}

function describeEffort(state: SettingState, agents: Record<string, AgentConfig>): string {
  if (!state.effort) return `Effort: each agent's own: ${describeOwnEfforts(agents)} /effort LEVEL sets one for all.`;
  const from = state.effort.source === "--effort" ? "from --effort" : "set by /effort";
  return `Effort: ${state.effort.level} for every agent (${from}; /effort default goes back to each agent's own).`;
}

/** `Jarvis (main): high (SOUL.md); Scout (researcher): the API's default.` */
function describeOwnEfforts(agents: Record<string, AgentConfig>): string {
  const parts = Object.values(agents).map((agent) => `${clip(agent.name, 40)} (${clip(agent.id, 40)}): ${agent.effort ? `${agent.effort} (SOUL.md)` : "the API's default"}`);
  return `${parts.join("; ")}.`;
}
