// The REPL's own commands (/help, /agents, /new or /clear, /sessions, /compact, /skills, /memory, /cost, /model, /effort, /thinking, /mode, /queue, /mcp, /exit),
// and the MCP servers' prompts as commands (`/mcp__server__prompt words`).
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { styleText } from "node:util";
import { formatUsageSummary, summarizeUsage } from "../model/usage.js";
import type { Assistant } from "../assistant/assistant.js";
import { MCP_CONFIG_FILE } from "../mcp/config.js";
import type { McpHub } from "../mcp/hub.js";
import { listMcpServers, noMcpServers } from "./mcp.js";
import { sessionTable } from "./sessions.js";
import { effortCommand, modeCommand, modelCommand, queueCommand, thinkingCommand, type SettingState } from "./setting-commands.js";
import { visibleText, visibleLine as clip } from "./visible-text.js";
import { resolveAgent } from "../assistant/routing.js";
import type { AgentConfig } from "../types.js";
import type { CompactionRecord, MessageRecord } from "../sessions/records.js";

/** The REPL's session state; the setting commands change their part of it. */
export interface ReplState extends SettingState {
  assistant: Assistant;
  /** The servers of mcp.json, when it lists any. */
  mcp: McpHub | undefined;
  agentId: string;
  sessionKey: string;
  out: { write(text: string): void };
  color: boolean;
  /** The model of agents that name none when /model has not chosen one, and where it comes from (`--model`...). */
  modelFallback: { model: string; named: string };
}

const HELP: Array<[string, string]> = [
  ["/help", "this list"],
  ["/agents", "the agents and their prefixes"],
  ["/new, /clear", "start a new conversation (miniclaw -c or --resume reopens it later)"],
  ["/sessions", "list sessions"],
  ["/compact", "compact this session now"],
  ["/skills", "the skills the agents can load"],
  ["/memory <query>", "search long-term memory"],
  ["/cost", "tokens, cache read share and estimated cost of this session"],
  ["/model [ID]", "the model of the next messages (/model default goes back)"],
  ["/effort [LEVEL]", "low, medium, high, xhigh, max for every agent; default: each agent's own"],
  ["/thinking show|hide", "stream the model's thinking, or one line (the default)"],
  ["/mode [MODE]", "the permission mode: default, acceptEdits, plan, dontAsk, bypassPermissions"],
  ["/queue steer|followup", "a line typed during a turn steers it (the default), or waits for its end"],
  ["/mcp", "the MCP servers of mcp.json, their state and tools"],
  ["/exit", "leave (also Ctrl-D)"],
  ["!command", "run a shell command yourself; its output goes with your next message"],
  ["@path", "in a message: attach that file (relative to the working folder)"],
];

type Say = (text: string) => void;
type Command = (state: ReplState, args: string, say: Say) => void | "exit" | Promise<void>;

/** A fresh key (`agent:main:20260105-143000-a1b2`, UTC; the random tail keeps two in one second apart); its file is made by the first message. */
const newSession: Command = (state, _, say) => {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").slice(0, 15).replace("T", "-");
  state.sessionKey = `agent:${state.agentId}:${stamp}-${randomBytes(2).toString("hex")}`;
  say(`New conversation ${clip(state.sessionKey, 200)} (after a message, miniclaw -c or miniclaw --resume ${clip(state.sessionKey, 200)} reopens it).`);
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
  // A session made by /new has no file until its first message; it is listed all the same, as the current one.
  sessions: async (state, _, say) => {
    for (const line of sessionTable(await state.assistant.sessions.list(), { current: state.sessionKey })) say(`  ${line}`);
  },
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
    // Between turns nothing else would write it: recorded now, a reload keeps it even if the REPL ends here. A new
    // session has no file to hold it yet, so one is made (its header), unless the mode is the default every session starts in.
    const { assistant, sessionKey, agentId } = state;
    if (assistant.permissionMode !== "default" && !(await assistant.sessions.exists(sessionKey))) await assistant.sessions.create(sessionKey, agentId);
    await assistant.recordPermissionMode(sessionKey, agentId);
  },
  model: (state, args, say) => say(modelCommand(args, state, state.assistant.agents[state.agentId]!, state.modelFallback)),
  // The servers of this process, connected first if no turn has needed them yet; mcp.json is read once, when the REPL starts.
  mcp: async ({ mcp, assistant: { workspace } }, _, say) => {
    if (!mcp) return say(`${noMcpServers(workspace)}\nmcp.json is read when miniclaw starts: restart the REPL after writing it.`);
    await mcp.connect();
    say(listMcpServers(mcp, join(workspace, MCP_CONFIG_FILE)));
  },
};

/** Handles a REPL line: "message" for one that goes to the model (text, an agent prefix with a message), "exit" for /exit, else "handled"; an unknown `/word` gets a one-line hint. */
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

/** The REPL command a line is; undefined for a message to the model (text, an agent prefix with a message). A prefix alone, or an unknown `/word`, is a command. */
export function replCommandOf(line: string, agents: Readonly<Record<string, AgentConfig>>): SlashCommand | undefined {
  const [agentId] = resolveAgent(line, agents, "\u0000");
  return agentId === "\u0000" ? parseSlashCommand(line) : undefined;
}

function dim(state: ReplState, text: string): string {
  return state.color ? styleText("dim", text) : text;
}

async function costOf(state: ReplState): Promise<string> {
  if (!(await state.assistant.sessions.exists(state.sessionKey))) return "No usage yet in this session.";
  const records = await state.assistant.sessions.show(state.sessionKey, { all: true });
  const responses = records.filter((r): r is MessageRecord | CompactionRecord => r.type === "message" || r.type === "compaction");
  return responses.some((r) => r.usage) ? formatUsageSummary(summarizeUsage(responses)) : "No usage yet in this session.";
}

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

/** A message of the form `/name rest`, split: the word after the slash, and everything after the white space that follows it. */
export type SlashCommand = { name: string; args: string };

const SLASH_COMMAND = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/;

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
