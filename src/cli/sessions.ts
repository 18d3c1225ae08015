// `miniclaw sessions` (list, show with usage and cost, new, fork, export, import), `miniclaw steer KEY TEXT` (a message into a session's inbox), and
// sessions as a table for people (`miniclaw sessions`, the REPL's /sessions and --resume).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { styleText } from "node:util";
import { ConfigError } from "../errors.js";
import { formatUsageSummary, summarizeUsage } from "../model/usage.js";
import { isServerResult, serverCallText, serverResultText } from "../content.js";
import { checkWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import type { CompactionRecord, MessageRecord, SessionRecord } from "../sessions/records.js";
import type { SessionBackend } from "../sessions/store.js";
import { exportSession, importSession, nestUnderParents, type SessionListing } from "../sessions/session-listing.js";
import type { ContentBlockParam } from "../types.js";
import { checkSessionKey, type CliArgs } from "./args.js";
import { closing, openSessions } from "./backends.js";
import type { CliIo } from "./io.js";
import { formatMinute, useColor } from "./render.js";
import { columns, visibleLine, visibleText } from "./visible-text.js";
import { readRegularText } from "../fs/regular-file.js";

/** Needs no credentials: it only reads and writes sessions (files, or the database when one is configured). */
export async function sessionsCommand(args: CliArgs, io: CliIo): Promise<number> {
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  await checkWorkspace(workspace);
  const onWarning = (m: string): void => void io.stderr.write(`warning: ${visibleText(m)}\n`);
  return closing(await openSessions(args, io, workspace, { onWarning }), ({ sessions }) => sessionsSubcommand(sessions, args, io));
}

/** `steer KEY TEXT`: adds TEXT to the durable inbox of session KEY (a file, or a row with a database), for its running turn or its next one; 0 once stored. No credentials. */
export async function steerCommand(args: CliArgs, io: CliIo): Promise<number> {
  const [key, ...words] = args.words;
  const text = words.join(" ");
  if (key === undefined || text.trim() === "") throw new ConfigError('usage: miniclaw steer KEY TEXT, e.g. miniclaw steer agent:main:main "also check the tests" (see miniclaw steer --help)');
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (!(await checkWorkspace(workspace))) throw new ConfigError(`no workspace at ${workspace} (give --workspace DIR, or set MINICLAW_WORKSPACE)`);
  const id = await closing(await openSessions(args, io, workspace), async ({ sessions }) => {
    // A key mistyped would hold the message for a session nobody runs: refused, unless a cron job's first run will open it.
    if (!(await sessions.exists(key)) && !(await cronSessions(workspace)).includes(key)) {
      throw new ConfigError(`no session "${visibleLine(key, 200)}" (miniclaw sessions lists them; miniclaw sessions new KEY makes an empty one to steer)`);
    }
    return sessions.addSteer(key, text);
  });
  io.stderr.write(`steer ${id} queued for ${visibleLine(key, 200)} (its running turn takes it before its next request, or its next turn does)\n`);
  return 0;
}

/** The sessions the jobs of the workspace's cron.json run in; none when it is missing or cannot be read (cron itself says why). */
async function cronSessions(workspace: string): Promise<string[]> {
  const { CRON_FILE, loadCronJobs } = await import("../cron/index.js");
  if (!existsSync(join(workspace, CRON_FILE))) return [];
  return (await loadCronJobs(workspace).catch(() => [])).map((job) => job.session);
}

async function sessionsSubcommand(store: SessionBackend, args: CliArgs, io: CliIo): Promise<number> {
  const [sub, key] = args.words;
  if (sub === undefined || sub === "list") {
    const sessions = await store.list();
    io.stdout.write(sessions.length === 0 ? "No sessions yet.\n" : sessionTable(sessions).map((line) => `${line}\n`).join(""));
    return 0;
  }
  if (sub === "show") {
    if (!key) throw new ConfigError("usage: miniclaw sessions show KEY [--all]");
    return showOne(store, key, args.all, io);
  }
  if (sub === "new") {
    if (!key) throw new ConfigError("usage: miniclaw sessions new KEY");
    checkSessionKey(key, "sessions new");
    if (await store.exists(key)) throw new ConfigError(`session "${key}" already exists`);
    await store.create(key);
    io.stdout.write(`Created session ${key}. Use it with --session ${key}.\n`);
    return 0;
  }
  if (sub === "fork") {
    const [, from, to, at] = args.words;
    if (!from || !to) throw new ConfigError("usage: miniclaw sessions fork FROM_KEY NEW_KEY [MESSAGE_ID]");
    checkSessionKey(to, "sessions fork");
    if (!(await store.exists(from))) throw new ConfigError(`no session "${from}" (miniclaw sessions lists them)`);
    if (await store.exists(to)) throw new ConfigError(`session "${to}" already exists`);
    const forked = await store.fork(from, to, at ? { upToMessageId: at } : {});
    io.stdout.write(`Forked ${from} into ${to} (${counted(forked.messages.length, "message")}). Use it with --session ${to}.\n`);
    return 0;
  }
  if (sub === "export") {
    if (!key || args.words.length !== 2) throw new ConfigError("usage: miniclaw sessions export KEY > FILE");
    if (!(await store.exists(key))) throw new ConfigError(`no session "${key}" (miniclaw sessions lists them)`);
    io.stdout.write(await exportSession(store, key));
    return 0;
  }
  if (sub === "import") {
    if (!key || args.words.length !== 2) throw new ConfigError("usage: miniclaw sessions import FILE [--session KEY]");
    const file = resolve(io.cwd, key);
    const text = await readRegularText(file).catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(`cannot read ${file}: ${error.code === "ENOENT" ? "no such file" : error.message}`);
    });
    const imported = await importSession(store, text, file, args.session);
    io.stdout.write(`Imported ${counted(imported.records, "record")} into session ${visibleText(imported.key)} (${visibleText(store.locationOf(imported.key))}).\n`);
    return 0;
  }
  throw new ConfigError(`unknown sessions command "${sub}" (use: sessions, sessions show KEY [--all], sessions new KEY, sessions fork FROM NEW [MESSAGE_ID], sessions export KEY, sessions import FILE)`);
}

async function showOne(store: SessionBackend, key: string, all: boolean, io: CliIo): Promise<number> {
  if (!(await store.exists(key))) throw new ConfigError(`no session "${key}" (miniclaw sessions lists them)`);
  const records = await store.show(key, { all });
  const color = useColor(io.stdout, io.env);
  const paint = (style: Parameters<typeof styleText>[0], text: string): string => (color ? styleText(style, text) : text);
  for (const record of records) io.stdout.write(`${renderRecord(record, paint)}\n`);
  const everything = all ? records : await store.show(key, { all: true });
  const responses = everything.filter((r): r is MessageRecord | CompactionRecord => r.type === "message" || r.type === "compaction");
  io.stdout.write(`\n${formatUsageSummary(summarizeUsage(responses))}\n`);
  return 0;
}

/** A text block miniclaw wrote into a user message, whole: `<context>…</context>`. */
const CONTEXT_BLOCK = /^<context>([\s\S]*)<\/context>$/;

/** One record for the terminal; everything the model or a file could have written is escaped (`visible-text`). */
function renderRecord(record: SessionRecord, paint: (style: Parameters<typeof styleText>[0], text: string) => string): string {
  const shown = (text: string, style?: Parameters<typeof styleText>[0]): string =>
    visibleText(text, { keepLineBreaks: true, mark: (t) => paint("dim", t), ...(style !== undefined && { plain: (t: string) => paint(style, t) }) });
  const result = ({ text, isError }: { text: string; isError?: boolean | undefined }): string => paint(isError ? "red" : "dim", "← ") + shown(clip(text, 400), isError ? "red" : "dim");
  if (record.type === "session") {
    const parent = record.parent ? paint("dim", " · subagent of ") + shown(`${record.parent.sessionKey} (delegate call ${record.parent.toolUseId})`, "dim") : "";
    return paint("dim", "# session ") + shown(`${record.key} (agent ${record.agentId})`, "dim") + paint("dim", ` started ${formatMinute(record.ts)}`) + parent;
  }
  if (record.type === "compaction") {
    return paint("magenta", `--- compaction at ${formatMinute(record.ts)}: ${counted(record.replacedMessages, "message")} replaced by this summary ---\n`) + shown(record.summary) + paint("magenta", "\n---");
  }
  if (record.type === "output") return paint("green", "output: ") + shown(JSON.stringify(record.output));
  if (record.type === "mode") return paint("magenta", `--- permission mode ${record.mode} (${record.by === "user" ? "set by the user" : "after exit_plan_mode"}) ---`);
  const { role, content } = record.message;
  const blocks: ContentBlockParam[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
  const lines = blocks.map((block) => {
    // What miniclaw adds to a user's message (the time, attachments, a hook's context) is not the user's words.
    const context = block.type === "text" && role === "user" ? CONTEXT_BLOCK.exec(block.text) : null;
    if (context) return paint("dim", "[context] ") + shown(clip(context[1]!, 400), "dim");
    if (block.type === "text") return shown(block.text);
    if (block.type === "tool_use") return paint("cyan", "→ ") + shown(`${block.name} ${JSON.stringify(block.input)}`, "cyan");
    if (block.type === "tool_result") {
      const text = typeof block.content === "string" ? block.content : (block.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
      return result({ text, isError: block.is_error });
    }
    if (block.type === "server_tool_use") return paint("cyan", "→ ") + shown(`${block.name}: ${serverCallText(block)}`, "cyan");
    if (isServerResult(block)) return result(serverResultText(block));
    if (block.type === "thinking") return paint("dim", "[thinking] ") + shown(clip(block.thinking, 200), "dim");
    return paint("dim", "[") + shown(block.type, "dim") + paint("dim", "]");
  });
  const who = role === "user" ? paint("green", "user") : paint("blue", "assistant");
  return `${paint("dim", "[") + shown(record.id, "dim") + paint("dim", "]")} ${who}${record.synthetic ? paint("dim", " (written by miniclaw)") : ""}: ${lines.join("\n")}`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

/** What a subagent's session key is indented with, under its parent's. */
export const SUBAGENT_MARK = "  └ ";

const HEADER = ["KEY", "AGENT", "MESSAGES", "TOKENS", "LAST ACTIVITY"];

/** Table rows, padded (keys and agents escaped), subagents under parents. `current` is marked `←`, first as new when it has no session yet (/new); `numbered` puts `1.`, `2.`... in front. */
export function sessionTable(sessions: readonly SessionListing[], options: { current?: string; numbered?: boolean } = {}): string[] {
  const { current, numbered = false } = options;
  const rows = nestUnderParents(sessions).map((s) => [
    `${s.depth === 1 ? SUBAGENT_MARK : ""}${visibleLine(s.key, 200)}`,
    visibleLine(s.agentId, 40),
    String(s.messages),
    `~${s.estimatedTokens}`,
    `${formatMinute(s.lastActivity)}${s.key === current ? " ←" : ""}`,
  ]);
  if (current !== undefined && !sessions.some((s) => s.key === current)) rows.unshift([visibleLine(current, 200), "", "0", "", "(new) ←"]);
  const table = [HEADER, ...rows].map((row, i) => (numbered ? [i === 0 ? "" : `${i}.`, ...row] : row));
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => columns(row[column]!))));
  return table.map((row) => row.map((cell, column) => cell + " ".repeat(widths[column]! - columns(cell))).join("  ").trimEnd());
}

/** `just now`, `5 minutes ago`, `2 hours ago`, `3 days ago`: how long before `now` the time `then` was. */
export function describeAge(then: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - then) / 60_000);
  if (minutes < 1) return "just now";
  const [count, unit] = minutes < 60 ? [minutes, "minute"] : minutes < 48 * 60 ? [Math.floor(minutes / 60), "hour"] : [Math.floor(minutes / 1440), "day"];
  return `${counted(count, unit)} ago`;
}

/** `1 message`, `2 messages`: a count and its noun, singular for one. */
export function counted(count: number, noun: string): string {
  return `${count} ${count === 1 ? noun : `${noun}s`}`;
}
