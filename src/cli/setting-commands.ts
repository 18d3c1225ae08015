// The REPL's settings: /mode (the permission mode of every turn), /queue (what a line typed during a turn does), /model, /effort and /thinking.
import type { PermissionMode } from "../gate/context.js";
import { parseEffort } from "../model/settings.js";
import type { AgentConfig, Effort } from "../types.js";
import { visibleLine as clip } from "./visible-text.js";

/** What these commands change for the REPL's run: the mode (every turn's); `queue` (`steer` joins a running turn, `followup` waits); the effort for every agent and its setter (absent: each own). */
export interface SettingState {
  assistant: { readonly permissionMode: PermissionMode; setPermissionMode(mode: PermissionMode): void };
  queue: "steer" | "followup";
  effort?: { level: Effort; source: "--effort" | "/effort" } | undefined;
  /** The model `/model` chose for agents whose SOUL.md names none; absent, the runtime's (--model, MINICLAW_MODEL, the default). */
  model?: string | undefined;
  showThinking: boolean;
}

/** The modes in the order /mode lists them, with what each lets run. */
const MODE_MEANINGS: ReadonlyArray<[PermissionMode, string]> = [
  ["default", "safe commands run, and files inside the working folder and workspace are written unasked; anything else is asked about"],
  ["acceptEdits", "file writes and edits inside the working folder and workspace run unasked (as in default); commands that may change something are asked about"],
  ["plan", "only what reads runs; the model investigates and proposes a plan, which you approve to leave plan mode"],
  ["dontAsk", "what would be asked about is refused without asking"],
  ["bypassPermissions", "everything runs unasked except what exec-approvals.json denies"],
];
const MODES = MODE_MEANINGS.map(([mode]) => mode).join(", ");

/** `Permission mode: plan: only what reads runs; ….` */
const describeMode = (mode: PermissionMode): string => `Permission mode: ${mode}: ${MODE_MEANINGS.find(([name]) => name === mode)?.[1] ?? ""}.`;

/** `/mode` shows the mode and what it lets run; `/mode MODE` (any case) sets it from the next tool call on, a running turn included. The user typed it, so bypassPermissions goes too. */
export function modeCommand(args: string, state: SettingState): string {
  const word = args.trim();
  if (word === "") return `${describeMode(state.assistant.permissionMode)}\nModes: ${MODES}. /mode MODE switches.`;
  const mode = MODE_MEANINGS.find(([name]) => name.toLowerCase() === word.toLowerCase())?.[0];
  if (mode === undefined) return `/mode ${clip(word, 40)}: must be one of ${MODES}. Usage: /mode [MODE]`;
  const previous = state.assistant.permissionMode;
  state.assistant.setPermissionMode(mode);
  return `${describeMode(mode)}${mode === previous ? " (unchanged)" : " From the next tool call on."}`;
}

/** `/queue` says what a line typed during a turn does; `/queue steer` and `/queue followup` choose. */
export function queueCommand(args: string, state: SettingState): string {
  const word = args.trim().toLowerCase();
  if (word === "steer" || word === "followup") state.queue = word;
  else if (word !== "") return "Usage: /queue steer|followup";
  return state.queue === "steer"
    ? "Lines typed while a turn runs steer it: each joins its next request (/queue followup makes them wait for the turn's end)."
    : "Lines typed while a turn runs wait for it to end, then go as messages of their own (/queue steer sends them into the running turn).";
}

/** The mode to resume a session in (its file last recorded `recorded`) and the line to print: plan, acceptEdits and dontAsk come back; bypassPermissions never (only the user enters it). */
export function restoredMode(recorded: PermissionMode | undefined): { mode?: PermissionMode; note?: string } {
  if (recorded === undefined || recorded === "default") return {};
  if (recorded === "bypassPermissions") return { note: "This session was last in bypassPermissions mode, which is never restored: starting in default (/mode bypassPermissions enters it again)." };
  return { mode: recorded, note: `Permission mode: ${recorded}, as this session last recorded (/mode default leaves it).` };
}

/** `/effort` shows the effort and where it comes from; `/effort LEVEL` sets it for every agent until the REPL ends; `/effort default` goes back to each agent's own. */
export function effortCommand(args: string, state: SettingState, agents: Record<string, AgentConfig>): string {
  const word = args.trim().toLowerCase();
  const owns = Object.values(agents).map((agent) => `${clip(agent.name, 40)} (${clip(agent.id, 40)}): ${agent.effort ? `${agent.effort} (SOUL.md)` : "the API's default"}`);
  const own = `${owns.join("; ")}.`;
  if (word === "") {
    if (!state.effort) return `Effort: each agent's own: ${own} /effort LEVEL sets one for all.`;
    const from = state.effort.source === "--effort" ? "from --effort" : "set by /effort";
    return `Effort: ${state.effort.level} for every agent (${from}; /effort default goes back to each agent's own).`;
  }
  if (word === "default") {
    state.effort = undefined;
    return `Effort: back to each agent's own: ${own}`;
  }
  const parsed = parseEffort(word);
  if (!parsed.ok) return `/effort ${clip(word, 40)}: ${parsed.problem.replace(/, got .*$/, "")}, or default. Usage: /effort [LEVEL|default]`;
  state.effort = { level: parsed.value, source: "/effort" };
  return `Effort: ${parsed.value} for every agent, from the next message until the REPL ends (/effort default goes back to each agent's own).`;
}

/** A model id as the providers spell them: `claude-opus-4-1`, `anthropic.claude-…-v2:0`, `claude-…@20241022`. */
const MODEL_ID = /^[A-Za-z0-9][\w.:@/-]*$/;

/** `/model` shows the agent's model, source; `/model ID` sets it until the REPL ends, as --model (a SOUL.md model is kept); `/model default` goes back. `fallback`: the runtime's; `named`: whence. */
export function modelCommand(args: string, state: SettingState, agent: Pick<AgentConfig, "name" | "model">, fallback: { model: string; named: string }): string {
  const word = args.trim();
  const own = agent.model ? ` ${clip(agent.name, 40)} keeps ${clip(agent.model, 80)}, named in its SOUL.md.` : "";
  const current = (): string => (state.model ? `${clip(state.model, 80)} (set by /model; /model default goes back to ${clip(fallback.model, 80)})` : `${clip(fallback.model, 80)} (${fallback.named})`);
  if (word === "") return `Model: ${current()}.${own} /model ID switches for the next messages.`;
  if (word.toLowerCase() === "default") {
    state.model = undefined;
    return `Model: back to ${current()}.${own}`;
  }
  if (!MODEL_ID.test(word)) return `/model ${clip(word, 60)}: not a model id (such as claude-opus-4-1). Usage: /model [ID|default]`;
  state.model = word;
  return `Model: ${clip(word, 80)} from the next message until the REPL ends (/model default goes back to ${clip(fallback.model, 80)}).${own}`;
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
