// Session key ↔ file name: a reversible encoding no key can use to leave the sessions folder.
import { createHash } from "node:crypto";
import { SessionError } from "../errors.js";

/** Suffix of every session file. */
export const SESSION_FILE_SUFFIX = ".jsonl";

/**
 * Longest encoded name kept whole, in bytes. Above it the name is cut and a hash
 * appended, so `<name>.jsonl.lock` stays well under the usual 255-byte limit.
 */
export const MAX_ENCODED_KEY_BYTES = 200;

const HASH_MARK = "~";
const HASH_HEX_CHARS = 32;
const PLAIN_BYTE = /^[a-z0-9_-]$/;
// Windows refuses these device names whatever the extension (`con.jsonl` included).
const RESERVED_NAME = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const CANONICAL_NAME = /^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/;

/**
 * Throws a SessionError when `key` cannot name a session: empty, or not
 * well-formed Unicode (a lone surrogate would not survive the UTF-8 round trip).
 */
export function assertValidKey(key: string): void {
  if (typeof key !== "string" || key.length === 0) throw new SessionError("invalid session key: the key is empty");
  if (LONE_SURROGATE.test(key)) throw new SessionError(`invalid session key ${JSON.stringify(key)}: not well-formed Unicode`);
}

/**
 * Encodes a key as a file name stem (without `.jsonl`).
 *
 * Only `a-z 0-9 _ -` pass through; every other UTF-8 byte, uppercase letters,
 * `.`, `/`, `\`, `:` and `%` included, becomes `%XX` with uppercase hex. So the
 * name has no separator and no dot (no `..`, no hidden file, no Windows trailing-dot
 * trimming), and two keys never differ only by case on a case-insensitive file
 * system: lowercase letters occur only as themselves, uppercase only inside `%XX`,
 * so names that fold to the same string are identical. Windows device names
 * (`con`, `nul`, `com1`...) get their first letter escaped. Encodings longer than
 * MAX_ENCODED_KEY_BYTES are cut and end with `~` and a SHA-256 prefix of the key;
 * such names do not decode, and the full key is read from the file's header record.
 * Throws SessionError for an invalid key.
 */
export function encodeKey(key: string): string {
  assertValidKey(key);
  let out = "";
  for (const byte of Buffer.from(key, "utf8")) {
    const char = String.fromCharCode(byte);
    out += PLAIN_BYTE.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (RESERVED_NAME.test(out)) out = `%${out.charCodeAt(0).toString(16).toUpperCase()}${out.slice(1)}`;
  if (out.length <= MAX_ENCODED_KEY_BYTES) return out;
  return `${cutEncoded(out, MAX_ENCODED_KEY_BYTES - HASH_HEX_CHARS - 1)}${HASH_MARK}${hashKey(key)}`;
}

/**
 * Decodes a file name stem made by `encodeKey`. Returns undefined for a hashed
 * (long-key) name or any name `encodeKey` could not have produced, so a stray
 * file never masquerades as a session; callers then read the key from the header.
 */
export function decodeKey(stem: string): string | undefined {
  if (!CANONICAL_NAME.test(stem)) return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < stem.length; ) {
    if (stem[i] === "%") {
      bytes.push(Number.parseInt(stem.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      bytes.push(stem.charCodeAt(i));
      i += 1;
    }
  }
  try {
    const key = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes));
    return encodeKey(key) === stem ? key : undefined;
  } catch {
    return undefined;
  }
}

/** The file name (`<encoded>.jsonl`) of a key's session. Throws SessionError for an invalid key. */
export function sessionFileName(key: string): string {
  return encodeKey(key) + SESSION_FILE_SUFFIX;
}

/** True when the stem ends with the hash of a long key (decodeKey cannot restore it). */
export function isHashedStem(stem: string): boolean {
  return stem.includes(HASH_MARK);
}

function hashKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex").slice(0, HASH_HEX_CHARS);
}

/** Cuts an encoded name to at most `max` chars without splitting a `%XX` escape. */
function cutEncoded(encoded: string, max: number): string {
  let end = max;
  const escapeStart = encoded.lastIndexOf("%", end - 1);
  if (escapeStart >= 0 && escapeStart + 3 > end) end = escapeStart;
  return encoded.slice(0, end);
}
