// Prefix routing: which agent a message goes to, and the slash-command shape the REPL answers itself.
import type { AgentConfig } from "../types.js";

/** The agent a message goes to when no prefix routes it. */
export const DEFAULT_AGENT_ID = "main";

/** A message of the form `/name rest`, split: the word after the slash, and everything after the white space that follows it. */
export type SlashCommand = { name: string; args: string };

const SLASH_COMMAND = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

/**
 * Picks the agent for a message: its prefix, white space and text go to that agent without the prefix (`/research what?` → `["researcher", "what?"]`);
 * anything else (the prefix alone, `/researchers`, an unknown `/word`) to `defaultAgentId`, unchanged. Pure.
 */
export function resolveAgent(text: string, agents: Readonly<Record<string, AgentConfig>>, defaultAgentId = DEFAULT_AGENT_ID): [agentId: string, text: string] {
  for (const id of Object.keys(agents).sort()) {
    const prefix = agents[id]?.prefix;
    if (!prefix || !text.startsWith(prefix)) continue;
    const rest = text.slice(prefix.length);
    if (!/^\s/.test(rest)) continue;
    const message = rest.trimStart();
    if (message !== "") return [id, message];
  }
  return [defaultAgentId, text];
}

/** Splits a message that looks like a slash command (`/help`, `/model opus`; `/usr/bin/env is missing` is none), for the REPL once `resolveAgent` did not route it. */
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
