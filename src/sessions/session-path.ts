// Where a session lives: its key as a readable file name (fs/file-names.ts), and old-style names moved to it.
import { existsSync, linkSync, renameSync, unlinkSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { orFallback, SessionError } from "../errors.js";
import { decodeFileStem, encodeFileStem, escapeBytes, isHashedStem } from "../fs/file-names.js";

/** Suffix of every session file. */
export const SESSION_FILE_SUFFIX = ".jsonl";
/** Longest stem kept whole, in bytes, so `<stem>.jsonl.lock` stays under 255; a longer key is cut and hashed and read from the header. */
export const MAX_ENCODED_KEY_BYTES = 200;
const MAX_REMEMBERED_NAMES = 1_000;

/** Session files known to be under their new name, by path: skips the checks on later calls. */
const settled = new Set<string>();
/** Names already encoded: the store names a session's file at every append. */
const names = new Map<string, string>();

/** The file name stem of a session key (`agent#main#main`); keys are not normalized. Throws SessionError for an empty or ill-formed key. */
export function encodeKey(key: string): string {
  if (typeof key !== "string" || key === "") throw new SessionError("invalid session key: the key is empty");
  return encodeFileStem(key, MAX_ENCODED_KEY_BYTES, (message) => new SessionError(message.replace("invalid key", "invalid session key")));
}

/** The key of a session file's stem (this encoding, else the old one); undefined for a hashed or stray name. */
export function decodeKey(stem: string): string | undefined {
  const key = decodeFileStem(stem);
  if (key !== undefined || !LEGACY_NAME.test(stem) || isHashedStem(stem)) return key;
  const legacy = orFallback(() => decodeURIComponent(stem), undefined);
  return legacy !== undefined && legacyStem(legacy) === stem ? legacy : undefined;
}

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
 * The file name of a key's session in `dir`, after moving a file from the old name (`agent%3Amain%3Amain.jsonl`) by a link
 * and an unlink, so neither file is ever lost (both existing: the new one is used). Throws SessionError for an invalid key.
 */
export function resolveSessionFileName(dir: string, key: string): string {
  const name = sessionFileName(key);
  const path = join(dir, name);
  if (settled.has(path)) return name;
  if (!existsSync(path)) {
    const legacy = join(dir, legacyStem(key) + SESSION_FILE_SUFFIX);
    if (legacy === path || !existsSync(legacy)) return name;
    moveWithoutReplacing(legacy, path);
    if (!existsSync(path)) return name;
  }
  settled.add(path);
  return name;
}

function moveWithoutReplacing(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ENOENT") return; // Another process moved or created it first.
    // Left under the old name when this fails too; the next call tries again.
    return orFallback(() => (existsSync(to) ? undefined : renameSync(from, to)), undefined);
  }
  // Both names now point at one file; should the unlink fail, the old one is harmless.
  orFallback(() => unlinkSync(from), undefined);
}

// The encoding before readable names, kept only to find files written under it.
const LEGACY_PLAIN_BYTE = /^[a-z0-9_-]$/;
const LEGACY_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const LEGACY_NAME = /^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/;

function legacyStem(key: string): string {
  let out = "";
  for (const byte of Buffer.from(key, "utf8")) out += LEGACY_PLAIN_BYTE.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : escapeBytes([byte]);
  if (LEGACY_RESERVED.test(out)) out = escapeBytes([out.charCodeAt(0)]) + out.slice(1);
  if (out.length <= MAX_ENCODED_KEY_BYTES) return out;
  let end = MAX_ENCODED_KEY_BYTES - 33;
  const escapeStart = out.lastIndexOf("%", end - 1);
  if (escapeStart >= 0 && escapeStart + 3 > end) end = escapeStart;
  return `${out.slice(0, end)}~${createHash("sha256").update(key, "utf8").digest("hex").slice(0, 32)}`;
}
