// Reading sessions for people and copies: the listing, the records shown or forked, and JSONL export and import.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../deps.js";
import { ifMissing, SessionError } from "../errors.js";
import { decodeKey, SESSION_FILE_SUFFIX } from "./session-path.js";
import { agentIdFromKey, type HeaderRecord, type SessionRecord } from "./records.js";
import { parseAllRecords, readLoadRegionFromFile, type LoadRegion } from "./session-file.js";
import { viewForLoad } from "./session-handle.js";
import type { SessionBackend } from "./store.js";
import { sessionContextSize } from "./compaction.js";

/** A `miniclaw sessions` line: the messages the model would see (summary included), their tokens (exact where usage allows), the newest record time or mtime. */
export interface SessionListing {
  key: string;
  agentId: string;
  messages: number;
  estimatedTokens: number;
  lastActivity: number;
  file: string;
  parent?: { sessionKey: string; toolUseId: string };
}

type ListDeps = { onWarning: (message: string) => void; clock: Clock };

/** A listing in display order: `depth` 1 for a subagent's session shown under its parent. */
export type NestedListing = SessionListing & { depth: 0 | 1 };

/** Puts each subagent's session right after its parent's, oldest first; a child whose parent is not listed stays at depth 0. Pure. */
export function nestUnderParents(listings: readonly SessionListing[]): NestedListing[] {
  const byKey = new Map(listings.map((listing) => [listing.key, listing]));
  const children = new Map<string, SessionListing[]>();
  for (const listing of listings) {
    const parent = listing.parent?.sessionKey;
    // Subagents cannot delegate, so a parent is never a child itself; a file that says otherwise is listed flat.
    if (parent === undefined || parent === listing.key || byKey.get(parent)?.parent !== undefined || !byKey.has(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), listing]);
  }
  const nested = new Set([...children.values()].flat().map((listing) => listing.key));
  return listings.flatMap((listing): NestedListing[] => {
    if (nested.has(listing.key)) return [];
    const under = [...(children.get(listing.key) ?? [])].sort((a, b) => a.lastActivity - b.lastActivity || a.key.localeCompare(b.key));
    return [{ ...listing, depth: 0 }, ...under.map((child) => ({ ...child, depth: 1 as const }))];
  });
}

/** The sessions of `dir`, newest activity first; a file whose key is neither in its header nor its name is skipped with a warning. */
export async function listSessions(dir: string, deps: ListDeps): Promise<SessionListing[]> {
  const cannot = (error: Error): Error => new SessionError(`cannot list sessions in ${dir}: ${error.message}`, { cause: error });
  const names = await readdir(dir).catch((error: unknown) => ifMissing(error, [], cannot));
  const listings: SessionListing[] = [];
  for (const name of names.filter((n) => n.endsWith(SESSION_FILE_SUFFIX)).sort()) {
    const file = join(dir, name);
    const region = await readLoadRegionFromFile(file).catch((error: Error) => {
      deps.onWarning(`${file}: skipped: cannot read it (${error.message})`);
      return undefined;
    });
    if (region === undefined) continue;
    region.warnings.forEach((warning) => deps.onWarning(warning));
    const key = region.header?.key ?? decodeKey(name.slice(0, -SESSION_FILE_SUFFIX.length));
    if (key === undefined) {
      deps.onWarning(`${file}: skipped: no session header and the name is not an encoded key`);
      continue;
    }
    const mtime = region.lastTs === undefined ? await stat(file).then((s) => s.mtimeMs, () => 0) : 0;
    listings.push(listingOf(key, region, file, deps.clock.now(), mtime));
  }
  return listings.sort((a, b) => b.lastActivity - a.lastActivity || a.key.localeCompare(b.key));
}

/** The listing of one session from its load region; `fallbackTs` is its last activity when no record has a time. */
export function listingOf(key: string, region: LoadRegion, file: string, now: number, fallbackTs: number): SessionListing {
  const { session } = viewForLoad(region, { key, file, ts: now }, "read");
  return {
    key,
    agentId: region.header?.agentId ?? agentIdFromKey(key),
    messages: session.messages.length,
    estimatedTokens: sessionContextSize(session),
    lastActivity: region.lastTs ?? fallbackTs,
    file,
    ...(region.header?.parent && { parent: region.header.parent }),
  };
}

/** The records a fork copies (all but headers, up to message `upToMessageId` and its outputs) and the agent. Throws SessionError for a missing message. */
export function selectForkRecords(records: readonly SessionRecord[], where: string, fromKey: string, upToMessageId: string | undefined): { agentId: string; records: SessionRecord[] } {
  const header = records.find((record): record is HeaderRecord => record.type === "session");
  let end = records.length;
  if (upToMessageId !== undefined) {
    end = records.findIndex((record) => record.type === "message" && record.id === upToMessageId) + 1;
    if (end === 0) throw new SessionError(`no message ${upToMessageId} in session ${fromKey} (${where})`);
    while (records[end]?.type === "output") end++;
  }
  return { agentId: header?.agentId ?? agentIdFromKey(fromKey), records: records.slice(0, end).filter((record) => record.type !== "session") };
}

/** The records `show` prints for a region: the header, the last compaction, and each message with its structured answers. */
export function recordsToShow(region: LoadRegion): SessionRecord[] {
  const outputs = region.outputs ?? [];
  const messages = region.records.flatMap((record): SessionRecord[] => [record, ...outputs.filter((o) => o.messageId === record.id)]);
  return [...(region.header ? [region.header] : []), ...(region.compaction ? [region.compaction] : []), ...messages];
}

/** Every record of a session as JSONL (the session file's format, one record per line). Throws SessionError when it does not exist. */
export async function exportSession(store: SessionBackend, key: string): Promise<string> {
  const records = await store.show(key, { all: true });
  return records.map((record) => `${JSON.stringify(record)}\n`).join("");
}

/** A JSONL text as a new session under `key`, else its header's; all or nothing: a bad line, no key or an existing session throws SessionError. */
export async function importSession(store: SessionBackend, text: string, source: string, key?: string): Promise<{ key: string; records: number }> {
  const { records, warnings } = parseAllRecords(text, source);
  if (warnings.length > 0) throw new SessionError(`cannot import ${warnings[0]!.replace(": skipped a ", ": a ")}; nothing was imported`);
  const header = records[0]?.type === "session" ? records[0] : undefined;
  const target = key ?? header?.key;
  if (target === undefined) throw new SessionError(`cannot import ${source}: it does not start with a session header; name the session with --session KEY`);
  const body: SessionRecord[] = header ? [{ ...header, key: target }, ...records.slice(1)] : records;
  if (body.length === 0) throw new SessionError(`cannot import ${source}: it holds no records`);
  const release = await store.lock(target);
  try {
    if (await store.exists(target)) throw new SessionError(`session ${target} already exists (${store.locationOf(target)}); import under another key with --session NEW_KEY`);
    await store.append(target, body);
  } finally {
    await release();
  }
  return { key: target, records: body.length };
}
