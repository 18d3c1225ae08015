// Prefix routing: which agent a message goes to.
import type { AgentConfig } from "../types.js";

/** The agent a message goes to when no prefix routes it. */
export const DEFAULT_AGENT_ID = "main";

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
