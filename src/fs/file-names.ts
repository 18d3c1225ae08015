// Key ↔ file name: one readable, reversible encoding, safe on every file system, for session and memory files.
// `agent:main:20261201T093745` → `agent#main#20261201^t093745`: `:` is `#` (Windows forbids `:`), an uppercase letter `^`
// and its lowercase (case-insensitive file systems never merge two keys). Kept: lowercase ASCII letters, digits,
// `- _ . , ( ) + = @ ! '`, space, caseless or lowercase letters and marks of other scripts; all else (an edge dot or space,
// `ß`) is `%XX` per UTF-8 byte, so a name never leaves its folder nor hides. A Windows device name gets its first letter
// escaped; a name unstable under NFC, every non-ASCII character.
import { createHash } from "node:crypto";
import { MiniclawError, orFallback } from "../errors.js";

const SEPARATOR = "#";
const UPPER_MARK = "^";
/** Marks a cut name followed by a hash; never kept literally, so it cannot occur otherwise. */
const HASH_MARK = "~";
const HASH_HEX_CHARS = 32;
const KEPT_ASCII = /^[a-z0-9\-_.,()+=@!' ]$/;
const KEPT_OTHER = /^[\p{L}\p{M}\p{N}]$/u;
const EDGE = /^[. ]$/;
// Windows refuses these device names whatever the extension (`con.jsonl` and `com¹.md` included).
const RESERVED_NAME = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\.|$)/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** What decoding replaces: a run of `%XX` escapes, a case mark and its letter, a separator. */
const TOKEN = /(?:%[0-9A-Fa-f]{2})+|\^.|#/gsu;

/**
 * With `maxBytes`, a longer stem is cut (never inside an escape or a character) and ends with `~` and a SHA-256 prefix:
 * such names do not decode, so the caller keeps the key elsewhere. Throws what `makeError` makes (a MiniclawError) for an empty or ill-formed key.
 */
export function encodeFileStem(key: string, maxBytes = Infinity, makeError = (message: string): Error => new MiniclawError(message)): string {
  if (key.length === 0) throw makeError("invalid key: the key is empty");
  if (LONE_SURROGATE.test(key)) throw makeError(`invalid key ${JSON.stringify(key)}: not well-formed Unicode`);
  let tokens = encodeTokens(key, true);
  if (tokens.join("").normalize("NFC") !== tokens.join("")) tokens = encodeTokens(key, false);
  if (RESERVED_NAME.test(tokens.join(""))) tokens[0] = escapeChar(key[0]!);
  const stem = tokens.join("");
  if (Buffer.byteLength(stem) <= maxBytes) return stem;
  const hash = createHash("sha256").update(key, "utf8").digest("hex").slice(0, HASH_HEX_CHARS);
  let cut = "";
  for (const token of tokens) {
    if (Buffer.byteLength(cut + token) > maxBytes - HASH_HEX_CHARS - HASH_MARK.length) break;
    cut += token;
  }
  return `${cut}${HASH_MARK}${hash}`;
}

/** The key of a stem `encodeFileStem` made, or undefined for any other name (hashed, stray, old-style). */
export function decodeFileStem(stem: string): string | undefined {
  const canonical = stem.normalize("NFC");
  if (isHashedStem(canonical)) return undefined;
  const key = decodeFileStemLoosely(canonical);
  if (key === undefined || key === "") return undefined;
  return orFallback(() => encodeFileStem(key), undefined) === canonical ? key : undefined;
}

/** Any name's key, NFC first: UTF-8 `%XX` runs decoded, `^x` is `X`, `#` is `:`, the rest as written (this encoding, both earlier ones, typed names). */
export function decodeFileStemLoosely(stem: string): string | undefined {
  return stem.normalize("NFC").replace(TOKEN, (token) => {
    if (token === SEPARATOR) return ":";
    if (token.startsWith(UPPER_MARK)) return upperOf(token.slice(1)) ?? token;
    // A run of escapes is UTF-8 (decodeURIComponent refuses what is not), else it stays as its `%XX`.
    return orFallback(() => decodeURIComponent(token), token.toUpperCase());
  });
}

/** True when the stem ends with the hash of a long key (its key cannot be read from it). */
export function isHashedStem(stem: string): boolean {
  return stem.includes(HASH_MARK);
}

/** One token per code point of `key`; with `keepOthers` false, every non-ASCII character is escaped. */
function encodeTokens(key: string, keepOthers: boolean): string[] {
  const chars = [...key];
  return chars.map((char, index) => {
    if (char === ":") return SEPARATOR;
    if ((index === 0 || index === chars.length - 1) && EDGE.test(char)) return escapeChar(char);
    if (KEPT_ASCII.test(char) || (keepOthers && char > "\u007f" && isKeptOther(char))) return char;
    const lower = char.toLowerCase();
    if (lower !== char && upperOf(lower) === char && (KEPT_ASCII.test(lower) || (keepOthers && isKeptOther(lower)))) return UPPER_MARK + lower;
    return escapeChar(char);
  });
}

/** A letter, mark or digit that is its own lowercase and comes back from its uppercase unchanged. */
function isKeptOther(char: string): boolean {
  return KEPT_OTHER.test(char) && char.toLowerCase() === char && char.toUpperCase().toLowerCase() === char;
}

/** The single uppercase character of a lowercase one whose case maps one to one, else undefined. */
function upperOf(lower: string): string | undefined {
  const upper = lower.toUpperCase();
  return [...upper].length === 1 && upper !== lower && upper.toLowerCase() === lower ? upper : undefined;
}

function escapeChar(char: string): string {
  return escapeBytes(Buffer.from(char, "utf8"));
}

/** Bytes as `%XX` escapes, uppercase hex. */
export function escapeBytes(bytes: Iterable<number>): string {
  let out = "";
  for (const byte of bytes) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}
