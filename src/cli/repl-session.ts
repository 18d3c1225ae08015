// Which session the REPL opens (-c, --resume, --session, the agent's default), what it says about it, and its banner.
import { ConfigError } from "../errors.js";
import type { Assistant } from "../assistant/assistant.js";
import { pickModel } from "../model/client.js";
import type { SessionListing } from "../sessions/session-listing.js";
import type { CliArgs } from "./args.js";
import type { LineInput } from "./line-input.js";
import { counted, describeAge, sessionTable } from "./sessions.js";
import { columns, visibleLine } from "./visible-text.js";

/** Sessions `--resume` offers to pick from, newest first. */
const PICK_COUNT = 10;
const DEFAULT_BASE_URL = "https://api.anthropic.com";
const BANNER_COLUMNS = 80;

/** The session the REPL talks in, and the agent it belongs to. */
export interface ReplSession {
  sessionKey: string;
  agentId: string;
}

type Say = (text: string) => void;

/** The session to open: `--session KEY`; `--resume KEY` (it must exist; its agent comes with it); `--resume` alone asks which recent one; `-c` the latest; else the default; undefined: no pick. */
export async function chooseReplSession(args: CliArgs, assistant: Assistant, input: LineInput, say: Say): Promise<ReplSession | undefined> {
  const agentId = args.agent ?? "main";
  const fallback = { sessionKey: args.session ?? assistant.sessionKeyFor(agentId), agentId };
  if (args.resume === undefined && !args.continueLast) return fallback;
  const listed = await assistant.sessions.list();
  if (typeof args.resume === "string") {
    const found = listed.find((s) => s.key === args.resume);
    if (!found) throw new ConfigError(`no session "${visibleLine(args.resume, 200)}" (miniclaw sessions lists them; miniclaw --resume alone offers the recent ones)`);
    return sessionOf(found, assistant);
  }
  if (args.resume === true && !input.interactive) throw new ConfigError("miniclaw --resume without a KEY asks on a terminal: give --resume KEY (miniclaw sessions lists them)");
  // Conversations a person had (`agent:` keys; no subagent's, no cron job's), newest first.
  const recent = listed.filter((s) => s.key.startsWith("agent:") && s.parent === undefined && (args.agent === undefined || s.agentId === args.agent));
  if (recent.length === 0) {
    say(`No earlier conversation${args.agent ? ` with ${visibleLine(args.agent, 40)}` : ""} to reopen: starting ${visibleLine(fallback.sessionKey, 200)}.`);
    return fallback;
  }
  if (args.continueLast) return sessionOf(recent[0]!, assistant);
  return pick(recent.slice(0, PICK_COUNT), assistant, input, say);
}

/** The numbered list and the question, until a number in range, Enter (the first, the latest), or Ctrl-D (none). */
async function pick(recent: SessionListing[], assistant: Assistant, input: LineInput, say: Say): Promise<ReplSession | undefined> {
  say(sessionTable(recent, { numbered: true }).join("\n"));
  for (;;) {
    const answer = await input.next(`Reopen which? 1-${recent.length} (Enter: 1, Ctrl-D: none) `);
    if (answer === undefined) return undefined;
    const chosen = answer.trim() === "" ? 1 : Number(answer.trim());
    if (Number.isInteger(chosen) && chosen >= 1 && chosen <= recent.length) return sessionOf(recent[chosen - 1]!, assistant);
    say(`"${visibleLine(answer, 40)}" is not one of the numbers 1 to ${recent.length}.`);
  }
}

function sessionOf(listing: SessionListing, assistant: Assistant): ReplSession {
  if (!assistant.agents[listing.agentId]) {
    throw new ConfigError(`session "${visibleLine(listing.key, 200)}" is agent ${visibleLine(listing.agentId, 40)}'s, which this workspace has not (agents: ${Object.keys(assistant.agents).join(", ")})`);
  }
  return { sessionKey: listing.key, agentId: listing.agentId };
}

/** `Reopened agent:main:main: 12 messages, last active 2 hours ago.` for a session with messages; undefined for a new one. */
export async function describeReopened(assistant: Assistant, sessionKey: string, now: number): Promise<string | undefined> {
  const found = (await assistant.sessions.list().catch(() => [])).find((s) => s.key === sessionKey);
  if (!found || found.messages === 0) return undefined;
  return `Reopened ${visibleLine(sessionKey, 200)}: ${counted(found.messages, "message")}, last active ${describeAge(found.lastActivity, now)} (/new starts another).`;
}

/** `miniclaw · Jarvis (main) · model … · session …` (the server when not Anthropic's, PostgreSQL's schema) and the hint, folded at ` · ` to at most 80 columns, or the terminal's width. */
export function banner(assistant: Assistant, session: ReplSession, opts: { model: string | undefined; envModel: string | undefined; baseURL: string; width: number }): string {
  const agent = assistant.agents[session.agentId]!;
  const model = pickModel(agent.model, opts.model, opts.envModel);
  const location = assistant.sessions.locationOf(session.sessionKey);
  const schema = /^postgres:([^/]*)\//.exec(location)?.[1];
  const parts = [
    "miniclaw",
    `${visibleLine(agent.name, 40)} (${visibleLine(session.agentId, 30)})`,
    `model ${visibleLine(model, 60)}`,
    ...(opts.baseURL.replace(/\/+$/, "") === DEFAULT_BASE_URL ? [] : [`server ${visibleLine(opts.baseURL, 70)}`]),
    `session ${visibleLine(session.sessionKey, 70)}`,
    ...(schema === undefined ? [] : [`sessions on PostgreSQL (schema ${visibleLine(schema, 40)})`]),
  ];
  const width = Math.min(BANNER_COLUMNS, opts.width);
  const lines = [parts[0]!];
  for (const part of parts.slice(1)) {
    const line = `${lines.at(-1)!} · ${part}`;
    if (columns(line) <= width) lines[lines.length - 1] = line;
    else lines.push(part);
  }
  return [...lines, "/help for commands, Ctrl-D to exit"].join("\n");
}
