// Moving a session between backends: every record as the JSONL file format, and back into any store.
import { SessionError } from "../errors.js";
import { parseAllRecords } from "./session-file.js";
import type { SessionRecord } from "./records.js";
import type { SessionBackend } from "./store.js";

/** Every record of a session as JSONL (the session file's format, one record per line). Throws SessionError when it does not exist. */
export async function exportSession(store: SessionBackend, key: string): Promise<string> {
  const records = await store.show(key, { all: true });
  return records.map((record) => `${JSON.stringify(record)}\n`).join("");
}

/**
 * Writes the records of a JSONL text (`source` names it) as a new session under `key`, else its header's key; resolves
 * to the key and the records written. All or nothing: a bad line, no key, or an existing session throws SessionError.
 */
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
