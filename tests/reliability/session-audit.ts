// Checks of a session after something tried to break it: it loads, its next request is valid, nothing complete was lost.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { buildRequest } from "../../src/loop/request.js";
import { type MessageRecord, type SessionRecord, parseRecordLine } from "../../src/sessions/records.js";
import { SessionStore, type LoadedSession } from "../../src/sessions/store.js";
import { validateRequest } from "../../src/testing/index.js";
import type { AnyTool } from "../../src/tools/define.js";
import type { MessageParam } from "../../src/types.js";
import { nextRequestProblems } from "../helpers/session-validity.js";

/** What an audit found; every list is empty for a sound session. */
export interface SessionAudit {
  session: LoadedSession;
  /** Problems of the loaded messages and of the next request (session-validity rules). */
  problems: string[];
  /** The scripted model's 400 message for the next request built by the library, or null. */
  requestError: string | null;
  /** Message records written completely to the file but missing from the loaded view. */
  lost: string[];
}

/** The complete records of a file's text (whole lines that parse), and how many lines did not. */
export function completeRecords(text: string): { records: SessionRecord[]; broken: number } {
  const records: SessionRecord[] = [];
  let broken = 0;
  const lines = text.split("\n");
  // The last piece has no newline: a write still under way or torn, never a complete record.
  if (lines.at(-1) !== "") broken++;
  for (const line of lines.slice(0, -1)) {
    if (line === "") continue;
    const parsed = parseRecordLine(line);
    if (parsed.ok) records.push(parsed.record);
    else broken++;
  }
  return { records, broken };
}

/**
 * The message records loading must return: those from the last complete
 * compaction's first kept message on (all of them when never compacted), in file order.
 */
export function expectedLoadedIds(records: SessionRecord[]): string[] {
  const messages = records.filter((r): r is MessageRecord => r.type === "message");
  const compactions = records.filter((r) => r.type === "compaction");
  const last = compactions.at(-1);
  if (last === undefined) return messages.map((r) => r.id);
  const start = messages.findIndex((r) => r.id === last.firstKeptId);
  return messages.slice(Math.max(0, start)).map((r) => r.id);
}

/** The next request the loop would send for `messages` plus one user message, as the library builds it. */
export function nextRequestError(messages: readonly MessageParam[], tools: readonly AnyTool[] = []): string | null {
  const params = buildRequest({
    model: "claude-test-1",
    maxTokens: 1024,
    system: "audit",
    tools,
    messages: [...messages, { role: "user", content: "the next message" }],
  });
  return validateRequest(params);
}

/**
 * Loads `key` from `sessionsDir` read-only and checks it: the messages and the next
 * request are valid, and every complete message record of the load region is there.
 */
export async function auditSession(sessionsDir: string, key: string): Promise<SessionAudit> {
  const store = new SessionStore(sessionsDir);
  const session = await store.load(key, { mode: "read" });
  const text = await readFile(store.fileFor(key), "utf8").catch(() => "");
  const expected = expectedLoadedIds(completeRecords(text).records);
  const loaded = new Set(session.records.map((r) => r.id));
  return {
    session,
    problems: nextRequestProblems(session.messages),
    requestError: nextRequestError(session.messages),
    lost: expected.filter((id) => !loaded.has(id)),
  };
}

/** The session file of `key` in a workspace. */
export function sessionFile(workspace: string, key: string): string {
  return new SessionStore(join(workspace, "sessions")).fileFor(key);
}

/** How many user message records of the file start with exactly `text` (the turn's own message). */
export async function countUserMessages(workspace: string, key: string, text: string): Promise<number> {
  const raw = await readFile(sessionFile(workspace, key), "utf8");
  return completeRecords(raw).records.filter((r) => {
    if (r.type !== "message" || r.message.role !== "user") return false;
    const content = r.message.content;
    const first = typeof content === "string" ? content : content[0]?.type === "text" ? content[0].text : undefined;
    return first === text;
  }).length;
}
