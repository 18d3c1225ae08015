// The REPL's MCP prompt commands: `/mcp__server__prompt words` becomes the prompt's text, sent as the message.
import type { McpHub } from "../mcp/hub.js";

/** For a line naming an MCP prompt (`/mcp__docs__summarize topic=tea`): its text, sent as the message; `error` (one line) for a bad argument or a failed server; undefined when it names none. */
export async function mcpPromptMessage(line: string, mcp: McpHub | undefined): Promise<{ text: string } | { error: string } | undefined> {
  if (!mcp || !line.startsWith("/mcp__")) return undefined;
  const [word = "", ...rest] = line.trim().split(/\s+/);
  await mcp.connect();
  const command = mcp.prompts().find((p) => p.command === word);
  if (!command) return undefined;
  try {
    const text = await command.render(rest.join(" "));
    return text.trim() === "" ? { error: `${word} gave an empty prompt` } : { text };
  } catch (error) {
    return { error: `${word}: ${error instanceof Error ? error.message : String(error)}` };
  }
}
