// A server's prompts as REPL commands: `/mcp__server__prompt args`, the arguments read as `name=value` or in order, the messages as one user text.
import type { McpPromptInfo } from "./catalog.js";
import type { McpConnection } from "./connection.js";
import { mcpToolName } from "./names.js";

/** One prompt as a command: its name (with the slash), what it takes, and how to get its text. */
export interface McpPromptCommand {
  command: string;
  server: string;
  prompt: McpPromptInfo;
  /** The prompt's messages for the words after the command, as the text of one user message; rejects with one line. */
  render(words: string): Promise<string>;
}

/** The commands of the servers' prompts, sorted by command. */
export function promptCommands(connections: readonly McpConnection[]): McpPromptCommand[] {
  return connections
    .flatMap((c) => c.catalog.prompts.map((prompt) => ({ command: `/${mcpToolName(c.name, prompt.name)}`, server: c.name, prompt, render: (words: string) => renderPrompt(c, prompt, words) })))
    .sort((a, b) => (a.command < b.command ? -1 : 1));
}

/** A prompt's arguments: `name=value` pairs, or else words in order (the last takes the rest). Throws one line for a missing or unknown one. */
export function promptArguments(prompt: McpPromptInfo, words: string): Record<string, string> {
  const names = prompt.arguments.map((a) => a.name);
  const pairs = [...words.matchAll(/([A-Za-z0-9_.-]+)=("([^"]*)"|'([^']*)'|\S+)/g)];
  const values: Record<string, string> = {};
  if (pairs.length > 0) {
    for (const [, key = "", raw = "", dq, sq] of pairs) {
      if (!names.includes(key)) throw new Error(`${prompt.name} takes ${names.join(", ") || "no arguments"}; not "${key}"`);
      values[key] = dq ?? sq ?? raw;
    }
  } else {
    const parts = words.trim() === "" ? [] : words.trim().split(/\s+/);
    names.forEach((name, i) => {
      const value = i === names.length - 1 ? parts.slice(i).join(" ") : parts[i];
      if (value) values[name] = value;
    });
  }
  const missing = prompt.arguments.filter((a) => a.required && values[a.name] === undefined).map((a) => a.name);
  if (missing.length > 0) throw new Error(`${prompt.name} needs ${missing.join(", ")}: write ${prompt.arguments.map((a) => `${a.name}=…`).join(" ")}`);
  return values;
}

async function renderPrompt(c: McpConnection, prompt: McpPromptInfo, words: string): Promise<string> {
  const args = promptArguments(prompt, words);
  const result = await c.request((client) => client.getPrompt({ name: prompt.name, arguments: args }));
  const texts = result.messages.flatMap((m) => {
    const content = m.content as { type: string; text?: string; resource?: { text?: string; uri?: string } };
    if (content.type === "text" && content.text) return [content.text];
    if (content.type === "resource") return [content.resource?.text ?? `[resource ${content.resource?.uri ?? ""}]`];
    return [`[${content.type}]`];
  });
  return texts.join("\n\n");
}
