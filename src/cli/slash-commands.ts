// The REPL's own commands (/help, /agents, /new or /clear, /sessions, /compact, /skills, /memory, /cost, /effort, /thinking, /mode, /queue, /mcp, /exit).
import { join } from "node:path";
import { styleText } from "node:util";
import { formatUsageSummary, summarizeUsage } from "../model/usage.js";
import type { Assistant } from "../assistant/assistant.js";
import { MCP_CONFIG_FILE } from "../mcp/config.js";
import type { McpHub } from "../mcp/hub.js";
import { listMcpServers, noMcpServers } from "./mcp.js";
import { clip, formatMinute } from "./render.js";
import { effortCommand, modeCommand, queueCommand, thinkingCommand, type SettingState } from "./setting-commands.js";
import { visibleText } from "./visible-text.js";
import { findAgentByPrefix, parseSlashCommand, resolveAgent, type SlashCommand } from "../assistant/routing.js";
import type { AgentConfig } from "../types.js";
import type { CompactionRecord, MessageRecord } from "../sessions/records.js";
import { nestUnderParents } from "../sessions/session-listing.js";
import { SUBAGENT_MARK } from "./sessions.js";

/** The REPL's session state; the setting commands change their part of it. */
export interface ReplState extends SettingState {
  assistant: Assistant;
  /** The servers of mcp.json, when it lists any. */
  mcp: McpHub | undefined;
  agentId: string;
  sessionKey: string;
  out: { write(text: string): void };
  color: boolean;
}

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

type Say = (text: string) => void;
type Command = (state: ReplState, args: string, say: Say) => void | "exit" | Promise<void>;

const newSession: Command = (state, _, say) => {
  state.sessionKey = `agent:${state.agentId}:${new Date().toISOString().replace(/[-:]/g, "").slice(0, 15).replace("T", "-")}`;
  say(`New session ${clip(state.sessionKey, 200)}.`);
};

const COMMANDS: Record<string, Command> = {
  help: (state, _, say) => {
    say(HELP.map(([name, text]) => `  ${name.padEnd(22)}${dim(state, text)}`).join("\n"));
    for (const agent of Object.values(state.assistant.agents)) if (agent.prefix) say(`  ${`${clip(agent.prefix, 40)} <message>`.padEnd(22)}${dim(state, `ask ${clip(agent.name, 60)}`)}`);
  },
  exit: () => "exit",
  quit: () => "exit",
  agents: (state, _, say) => {
    for (const agent of Object.values(state.assistant.agents)) {
      say(`  ${clip(agent.id, 40).padEnd(12)} ${clip(agent.name, 60)}${agent.prefix ? `  (${clip(agent.prefix, 40)} <message>)` : ""}${agent.id === state.agentId ? dim(state, "  ← current") : ""}`);
    }
  },
  new: newSession,
  clear: newSession,
  sessions: listSessions,
  compact: async (state, _, say) => say(visibleText(await state.assistant.compact(state.sessionKey, state.agentId), { keepLineBreaks: true })),
  skills: (state, _, say) => {
    const skills = state.assistant.skills.list();
    for (const skill of skills) say(`  ${clip(skill.name, 60).padEnd(24)} ${dim(state, clip(skill.description, 90))}`);
    if (skills.length === 0) say("No skills found.");
  },
  memory: async (state, query, say) => {
    if (!query.trim()) return say("Usage: /memory <query>");
    const hits = await state.assistant.memory.search(query);
    if (hits.length === 0) return say(`No memory matches "${clip(query, 200)}".`);
    for (const hit of hits) say(`  ${clip(hit.key, 80)}: ${clip(hit.snippet, 110)}`);
  },
  cost: async (state, _, say) => say(await costOf(state)),
  effort: (state, args, say) => say(effortCommand(args, state, state.assistant.agents)),
  thinking: (state, args, say) => say(thinkingCommand(args, state)),
  queue: (state, args, say) => say(queueCommand(args, state)),
  mode: async (state, args, say) => {
    say(modeCommand(args, state));
    // Between turns nothing else would write it: recorded now, a reload keeps it even if the REPL ends here.
    await state.assistant.recordPermissionMode(state.sessionKey, state.agentId);
  },
  // The servers of this process, connected first if no turn has needed them yet; mcp.json is read once, when the REPL starts.
  mcp: async ({ mcp, assistant: { workspace } }, _, say) => {
    if (!mcp) return say(`${noMcpServers(workspace)}\nmcp.json is read when miniclaw starts: restart the REPL after writing it.`);
    await mcp.connect();
    say(listMcpServers(mcp, join(workspace, MCP_CONFIG_FILE)));
  },
};

/**
 * Handles a line that is a REPL command. Returns "message" for lines that go to the model (plain text, and agent
 * prefixes such as `/research <question>`), "exit" for /exit. An unknown `/word` gets a one-line hint and no model call.
 */
export async function handleSlashCommand(line: string, state: ReplState): Promise<"handled" | "exit" | "message"> {
  const command = replCommandOf(line, state.assistant.agents);
  if (!command) return "message";
  const say: Say = (text) => state.out.write(`${text}\n`);
  const run = Object.hasOwn(COMMANDS, command.name) ? COMMANDS[command.name] : undefined;
  if (run) return (await run(state, command.args, say)) === "exit" ? "exit" : "handled";
  const agent = findAgentByPrefix(command.name, state.assistant.agents);
  say(agent ? `Usage: ${clip(agent.prefix ?? "", 40)} <message> (asks ${clip(agent.name, 60)}).` : `Unknown command /${clip(command.name, 60)}. Type /help for the list.`);
  return "handled";
}

/**
 * The REPL command a line is, or undefined for a message to the model: plain text, and an agent prefix with a message
 * (`/research <question>`). A prefix alone, or an unknown `/word`, is a command.
 */
export function replCommandOf(line: string, agents: Readonly<Record<string, AgentConfig>>): SlashCommand | undefined {
  const [agentId] = resolveAgent(line, agents, "\u0000");
  return agentId === "\u0000" ? parseSlashCommand(line) : undefined;
}

function dim(state: ReplState, text: string): string {
  return state.color ? styleText("dim", text) : text;
}

async function listSessions(state: ReplState, _: string, say: Say): Promise<void> {
  const sessions = await state.assistant.sessions.list();
  // A session made by /new has no file until its first message; it is listed all the same, as the current one.
  if (!sessions.some((s) => s.key === state.sessionKey)) say(`  ${clip(state.sessionKey, 200).padEnd(28)}    0 messages  (new) ←`);
  for (const s of nestUnderParents(sessions)) {
    const key = `${s.depth === 1 ? SUBAGENT_MARK : ""}${clip(s.key, 200)}`;
    say(`  ${key.padEnd(28)} ${String(s.messages).padStart(4)} messages  ~${s.estimatedTokens} tokens  ${formatMinute(s.lastActivity)}${s.key === state.sessionKey ? " ←" : ""}`);
  }
}

async function costOf(state: ReplState): Promise<string> {
  if (!(await state.assistant.sessions.exists(state.sessionKey))) return "No usage yet in this session.";
  const records = await state.assistant.sessions.show(state.sessionKey, { all: true });
  const responses = records.filter((r): r is MessageRecord | CompactionRecord => r.type === "message" || r.type === "compaction");
  return responses.some((r) => r.usage) ? formatUsageSummary(summarizeUsage(responses)) : "No usage yet in this session.";
}
