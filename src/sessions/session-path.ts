// Where a session lives: its key as a readable file name (fs/file-names.ts), and old-style names moved to it.
import { existsSync, linkSync, renameSync, unlinkSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { SessionError } from "../errors.js";
import { decodeFileStem, encodeFileStem, isHashedStem } from "../fs/file-names.js";

/** Suffix of every session file. */
export const SESSION_FILE_SUFFIX = ".jsonl";

/**
 * Longest file name stem kept whole, in bytes. Above it the stem is cut and a hash
 * appended, so `<stem>.jsonl.lock` stays well under the usual 255-byte limit; the
 * full key is then read from the file's header record.
 */
export const MAX_ENCODED_KEY_BYTES = 200;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Session files known to be under their new name (or moved there), by path: skips the checks on later calls. */
const settled = new Set<string>();

/**
 * Throws a SessionError when `key` cannot name a session: empty, or not
 * well-formed Unicode (a lone surrogate would not survive the UTF-8 round trip).
 */
export function assertValidKey(key: string): void {
  if (typeof key !== "string" || key.length === 0) throw new SessionError("invalid session key: the key is empty");
  if (LONE_SURROGATE.test(key)) throw new SessionError(`invalid session key ${JSON.stringify(key)}: not well-formed Unicode`);
}

/**
 * The file name stem of a session key (see fs/file-names.ts): `agent:main:main` is
 * `agent#main#main`. Keys are not normalized: two keys that differ are two sessions.
 * Throws SessionError for an invalid key.
 */
export function encodeKey(key: string): string {
  assertValidKey(key);
  return encodeFileStem(key, MAX_ENCODED_KEY_BYTES);
}

/**
 * The key of a session file's stem: the current encoding, else the old one
 * (`agent%3Amain%3Amain`); undefined for a hashed long key or a stray name (callers
 * then read the key from the header).
 */
export function decodeKey(stem: string): string | undefined {
  return decodeFileStem(stem) ?? decodeLegacyStem(stem);
}

/** Names already encoded: the store names a session's file at every append. */
const names = new Map<string, string>();
const MAX_REMEMBERED_NAMES = 1_000;

/** The file name (`<stem>.jsonl`) of a key's session. Throws SessionError for an invalid key. */
export function sessionFileName(key: string): string {
  let name = names.get(key);
  if (name === undefined) {
    name = encodeKey(key) + SESSION_FILE_SUFFIX;
    if (names.size >= MAX_REMEMBERED_NAMES) names.clear();
    names.set(key, name);
  }
  return name;
}

/**
 * The file name of a key's session in `dir`, after moving a file left under the old
 * name (`agent%3Amain%3Amain.jsonl`, before names became readable) to the new one.
 * The move is a hard link then an unlink of the old name, so it never replaces a
 * file already under the new name and never loses the old one: if both exist, the
 * new one is used and the old one left for a person to look at. Where links are not
 * supported, a rename when the new name is free. Its lock file is not moved: a
 * process of an older version holding it is the only reader of that lock. Sync, so
 * the store can call it wherever it names a file; after the first call per file it
 * costs nothing. Throws SessionError for an invalid key.
 */
export function resolveSessionFileName(dir: string, key: string): string {
  const name = sessionFileName(key);
  const path = join(dir, name);
  if (settled.has(path)) return name;
  if (existsSync(path)) {
    settled.add(path);
    return name;
  }
  const legacy = join(dir, legacyStem(key) + SESSION_FILE_SUFFIX);
  if (legacy !== path && existsSync(legacy)) {
    moveWithoutReplacing(legacy, path);
    if (existsSync(path)) settled.add(path);
  }
  return name;
}

function moveWithoutReplacing(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOENT") return; // Another process moved or created it first.
    try {
      if (!existsSync(to)) renameSync(from, to);
    } catch {
      // Left under the old name; the new name stays free and the next call tries again.
    }
    return;
  }
  try {
    unlinkSync(from);
  } catch {
    // Both names now point at one file; the old one is harmless.
  }
}

// The encoding used before readable names: `a-z 0-9 _ -` kept, every other UTF-8 byte `%XX`,
// device names with their first letter escaped, long names cut with `~` and a hash. Kept only
// to find files written under it.
const LEGACY_PLAIN_BYTE = /^[a-z0-9_-]$/;
const LEGACY_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const LEGACY_NAME = /^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/;

function legacyStem(key: string): string {
  let out = "";
  for (const byte of Buffer.from(key, "utf8")) {
    const char = String.fromCharCode(byte);
    out += LEGACY_PLAIN_BYTE.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (LEGACY_RESERVED.test(out)) out = `%${out.charCodeAt(0).toString(16).toUpperCase()}${out.slice(1)}`;
  if (out.length <= MAX_ENCODED_KEY_BYTES) return out;
  let end = MAX_ENCODED_KEY_BYTES - 33;
  const escapeStart = out.lastIndexOf("%", end - 1);
  if (escapeStart >= 0 && escapeStart + 3 > end) end = escapeStart;
  return `${out.slice(0, end)}~${createHash("sha256").update(key, "utf8").digest("hex").slice(0, 32)}`;
}

function decodeLegacyStem(stem: string): string | undefined {
  if (!LEGACY_NAME.test(stem) || isHashedStem(stem)) return undefined;
  const bytes = stem.split(/(%[0-9A-F]{2})/).flatMap((part) => (part.startsWith("%") ? [Number.parseInt(part.slice(1), 16)] : [...Buffer.from(part)]));
  try {
    const key = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes));
    return legacyStem(key) === stem ? key : undefined;
  } catch {
    return undefined;
  }
}
