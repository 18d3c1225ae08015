// Prefix routing: which agent a message goes to, and the slash-command shape the REPL answers itself.
import type { AgentConfig } from "../types.js";

/** The agent a message goes to when no prefix routes it. */
export const DEFAULT_AGENT_ID = "main";

/** A message of the form `/name rest`, split. */
export interface SlashCommand {
  /** The word after the slash, without it. */
  name: string;
  /** Everything after the word and the white space that follows it. */
  args: string;
}

const SLASH_COMMAND = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

/**
 * Picks the agent for a message. A message that starts with an agent's prefix followed by
 * white space and some text goes to that agent, with the prefix and the white space after it
 * removed (`/research what changed?` → `["researcher", "what changed?"]`). Anything else (the
 * prefix alone, `/researchers ...`, an unknown `/word`) goes to `defaultAgentId`, unchanged.
 * Pure: the same input always gives the same answer.
 */
export function resolveAgent(
  text: string,
  agents: Readonly<Record<string, AgentConfig>>,
  defaultAgentId = DEFAULT_AGENT_ID,
): [agentId: string, text: string] {
  const ids = Object.keys(agents).sort();
  for (const id of ids) {
    const prefix = agents[id]?.prefix;
    if (!prefix || !text.startsWith(prefix)) continue;
    const rest = text.slice(prefix.length);
    if (!/^\s/.test(rest)) continue;
    const message = rest.trimStart();
    if (message !== "") return [id, message];
  }
  return [defaultAgentId, text];
}

/**
 * Splits a message that looks like a slash command (`/help`, `/research`, `/model opus`), or
 * returns undefined. A path such as `/usr/bin/env is missing` is not a command. Use it after
 * `resolveAgent` did not route a message, to answer commands (or unknown ones) in the REPL.
 */
export function parseSlashCommand(text: string): SlashCommand | undefined {
  const match = SLASH_COMMAND.exec(text.trimEnd());
  if (!match?.[1]) return undefined;
  return { name: match[1], args: match[2] ?? "" };
}

/** The agent whose prefix is exactly `/name`, for the REPL to explain a prefix sent alone. */
export function findAgentByPrefix(name: string, agents: Readonly<Record<string, AgentConfig>>): AgentConfig | undefined {
  const prefix = name.startsWith("/") ? name : `/${name}`;
  return Object.values(agents).find((agent) => agent.prefix === prefix);
}
