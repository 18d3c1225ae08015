// The REPL's own commands (/help, /agents, /new or /clear, /sessions, /compact, /skills, /memory, /cost, /effort, /thinking, /mode, /queue, /mcp, /exit).
import { join } from "node:path";
import { styleText } from "node:util";
import { formatUsageSummary, summarizeUsage } from "../model/usage.js";
import type { Assistant } from "../assistant/assistant.js";
import { MCP_CONFIG_FILE } from "../mcp/config.js";
import type { McpHub } from "../mcp/hub.js";
import { listMcpServers, noMcpServers } from "./mcp.js";
import { clip, formatMinute } from "./render.js";
import { effortCommand, thinkingCommand, type SettingState } from "./setting-commands.js";
import { modeCommand, queueCommand, type ModeState } from "./mode-commands.js";
import { visibleText } from "./visible-text.js";
import { findAgentByPrefix, parseSlashCommand, resolveAgent, type SlashCommand } from "../assistant/routing.js";
import type { AgentConfig } from "../types.js";
import type { CompactionRecord, MessageRecord } from "../sessions/records.js";
import { nestUnderParents } from "../sessions/session-listing.js";
import { SUBAGENT_MARK } from "./sessions.js";

/** The REPL's session state; /effort and /thinking change their part of it (SettingState), /mode and /queue theirs (ModeState). */
export interface ReplState extends SettingState, ModeState {
  assistant: Assistant;
  /** The servers of mcp.json, when it lists any. */
  mcp: McpHub | undefined;
  agentId: string;
  sessionKey: string;
  out: { write(text: string): void };
  color: boolean;
}

type Outcome = "handled" | "exit" | "message";

const HELP: Array<[string, string]> = [
  ["/help", "this list"],
  ["/agents", "the agents and their prefixes"],
  ["/new, /clear", "start a fresh session"],
  ["/sessions", "list sessions"],
  ["/compact", "compact this session now"],
  ["/skills", "the skills the agents can load"],
  ["/memory <query>", "search long-term memory"],
  ["/cost", "tokens, cache read share and estimated cost of this session"],
  ["/effort [LEVEL]", "low, medium, high, xhigh, max for every agent; default: each agent's own"],
  ["/thinking show|hide", "stream the model's thinking, or one line (the default)"],
  ["/mode [MODE]", "the permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions"],
  ["/queue steer|followup", "a line typed during a turn steers it (the default), or waits for its end"],
  ["/mcp", "the MCP servers of mcp.json, their state and tools"],
  ["/exit", "leave (also Ctrl-D)"],
];

/**
 * Handles a line that is a REPL command. Returns "message" for lines that go to the model
 * (plain text, and agent prefixes such as `/research <question>`), "exit" for /exit.
 * An unknown `/word` gets a one-line hint and no model call.
 */
export async function handleSlashCommand(line: string, state: ReplState): Promise<Outcome> {
  const { assistant } = state;
  const command = replCommandOf(line, assistant.agents);
  if (!command) return "message";
  const say = (text: string): void => state.out.write(`${text}\n`);
  const dim = (text: string): string => (state.color ? styleText("dim", text) : text);
  switch (command.name) {
    case "help":
      say(HELP.map(([name, text]) => `  ${name.padEnd(22)}${dim(text)}`).join("\n"));
      for (const agent of Object.values(assistant.agents)) if (agent.prefix) say(`  ${`${clip(agent.prefix, 40)} <message>`.padEnd(22)}${dim(`ask ${clip(agent.name, 60)}`)}`);
      return "handled";
    case "exit":
    case "quit":
      return "exit";
    case "agents":
      for (const agent of Object.values(assistant.agents)) {
        say(`  ${clip(agent.id, 40).padEnd(12)} ${clip(agent.name, 60)}${agent.prefix ? `  (${clip(agent.prefix, 40)} <message>)` : ""}${agent.id === state.agentId ? dim("  ← current") : ""}`);
      }
      return "handled";
    case "new":
    case "clear":
      state.sessionKey = `agent:${state.agentId}:${new Date().toISOString().replace(/[-:]/g, "").slice(0, 15).replace("T", "-")}`;
      say(`New session ${clip(state.sessionKey, 200)}.`);
      return "handled";
    case "sessions":
      await listSessions(state, say);
      return "handled";
    case "compact":
      say(visibleText(await compactNow(state), { keepLineBreaks: true }));
      return "handled";
    case "skills":
      for (const skill of assistant.skills.list()) say(`  ${clip(skill.name, 60).padEnd(24)} ${dim(clip(skill.description, 90))}`);
      if (assistant.skills.list().length === 0) say("No skills found.");
      return "handled";
    case "memory":
      await searchMemory(state, command.args, say);
      return "handled";
    case "cost":
      say(await costOf(state));
      return "handled";
    case "effort":
      say(effortCommand(command.args, state, assistant.agents));
      return "handled";
    case "thinking":
      say(thinkingCommand(command.args, state));
      return "handled";
    case "mcp":
      say(await mcpListing(state));
      return "handled";
    case "mode":
      say(modeCommand(command.args, state));
      // Between turns nothing else would write it: recorded now, a reload keeps it even if the REPL ends here.
      await assistant.recordPermissionMode(state.sessionKey, state.agentId);
      return "handled";
    case "queue":
      say(queueCommand(command.args, state));
      return "handled";
  }
  const agent = findAgentByPrefix(command.name, assistant.agents);
  say(agent ? `Usage: ${clip(agent.prefix ?? "", 40)} <message> (asks ${clip(agent.name, 60)}).` : `Unknown command /${clip(command.name, 60)}. Type /help for the list.`);
  return "handled";
}

/**
 * The REPL command a line is, or undefined for a message to the model: plain text, and an agent
 * prefix with a message (`/research <question>`). A prefix alone, or an unknown `/word`, is a command.
 */
export function replCommandOf(line: string, agents: Readonly<Record<string, AgentConfig>>): SlashCommand | undefined {
  const [agentId] = resolveAgent(line, agents, "\u0000");
  return agentId === "\u0000" ? parseSlashCommand(line) : undefined;
}

async function listSessions(state: ReplState, say: (text: string) => void): Promise<void> {
  const sessions = await state.assistant.sessions.list();
  // A session made by /new has no file until its first message; it is listed all the same, as the current one.
  if (!sessions.some((s) => s.key === state.sessionKey)) say(`  ${clip(state.sessionKey, 200).padEnd(28)}    0 messages  (new) ←`);
  for (const s of nestUnderParents(sessions)) {
    const mark = s.key === state.sessionKey ? " ←" : "";
    const key = `${s.depth === 1 ? SUBAGENT_MARK : ""}${clip(s.key, 200)}`;
    say(`  ${key.padEnd(28)} ${String(s.messages).padStart(4)} messages  ~${s.estimatedTokens} tokens  ${formatMinute(s.lastActivity)}${mark}`);
  }
}

async function searchMemory(state: ReplState, query: string, say: (text: string) => void): Promise<void> {
  if (!query.trim()) return say("Usage: /memory <query>");
  const hits = await state.assistant.memory.search(query);
  if (hits.length === 0) return say(`No memory matches "${clip(query, 200)}".`);
  for (const hit of hits) say(`  ${clip(hit.key, 80)}: ${clip(hit.snippet, 110)}`);
}

async function costOf(state: ReplState): Promise<string> {
  if (!(await state.assistant.sessions.exists(state.sessionKey))) return "No usage yet in this session.";
  const records = await state.assistant.sessions.show(state.sessionKey, { all: true });
  const responses = records.filter((r): r is MessageRecord | CompactionRecord => r.type === "message" || r.type === "compaction");
  if (!responses.some((r) => r.usage)) return "No usage yet in this session.";
  return formatUsageSummary(summarizeUsage(responses));
}

/** The servers of this process, connected first if no turn has needed them yet; mcp.json is read once, when the REPL starts. */
async function mcpListing(state: ReplState): Promise<string> {
  const { mcp } = state;
  const { workspace } = state.assistant;
  if (!mcp) return `${noMcpServers(workspace)}\nmcp.json is read when miniclaw starts: restart the REPL after writing it.`;
  await mcp.connect();
  return listMcpServers(mcp, join(workspace, MCP_CONFIG_FILE));
}

async function compactNow(state: ReplState): Promise<string> {
  return state.assistant.compact(state.sessionKey, state.agentId);
}

