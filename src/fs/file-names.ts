// Key ↔ file name: one readable, reversible encoding, safe on every file system, for session and memory files.
//
// The rules, for a key such as `agent:main:20261201T093745`:
// - `:` becomes `#`, so the key's parts stay apart and readable: `agent#main#20261201^t093745`
//   (Windows forbids `:` in names).
// - An uppercase letter becomes `^` and its lowercase (`T` → `^t`), so no two names differ only
//   by case: a case-insensitive file system (macOS, Windows) never merges two keys.
// - Kept as they are: lowercase ASCII letters, digits, `- _ . , ( ) + = @ ! '` and space, and
//   letters, digits and marks of other scripts that have no case or are lowercase (`café`, `日本語`).
// - Everything else (`/ \ % # ^ ~ < > " | ? *`, control characters, a leading dot or space, a
//   trailing dot or space, letters whose case does not map one to one such as `ß`) becomes `%XX`
//   per UTF-8 byte, uppercase hex. So a name has no separator, is never `.`/`..` or hidden, and
//   cannot leave its folder.
// - A Windows device name (`con`, `nul`, `com1`... with or without an extension) gets its first
//   letter escaped: `%63on`.
// - If the result is not stable under Unicode NFC (macOS may hand names back decomposed), every
//   non-ASCII character is escaped instead, so the name reads back as written.
// `#` and `^` were escaped by both earlier encodings (sessions: `agent%3Amain%3Amain`; memory:
// letters kept, `Project Alpha`), so `decodeFileStemLoosely` reads every old name correctly.
import { createHash } from "node:crypto";
import { MiniclawError } from "../errors.js";

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
const TOKEN = /%[0-9A-Fa-f]{2}|\^.|./gsu;

/**
 * The file name stem of `key`, by the rules above. With `maxBytes`, a longer stem is
 * cut (never inside an escape or a character) and ends with `~` and a SHA-256 prefix
 * of the key: such names do not decode, so the caller must keep the key elsewhere
 * (sessions keep it in the file's header). Throws MiniclawError for an empty key or
 * one that is not well-formed Unicode (a lone surrogate would not survive UTF-8).
 */
export function encodeFileStem(key: string, maxBytes = Infinity): string {
  if (key.length === 0) throw new MiniclawError("invalid key: the key is empty");
  if (LONE_SURROGATE.test(key)) throw new MiniclawError(`invalid key ${JSON.stringify(key)}: not well-formed Unicode`);
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

/**
 * The key of a stem `encodeFileStem` made, or undefined for any other name (a hashed
 * long key, a stray file, an old-style name), so a stray file never masquerades as a key.
 */
export function decodeFileStem(stem: string): string | undefined {
  const canonical = stem.normalize("NFC");
  if (isHashedStem(canonical)) return undefined;
  const key = decodeFileStemLoosely(canonical);
  if (key === undefined || key === "") return undefined;
  try {
    return encodeFileStem(key) === canonical ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The key of any name: `%XX` runs that form UTF-8 decode, `^x` is `X`, `#` is `:`, the
 * rest is read as written (a `%` that decodes to nothing stays). Reads the names of
 * this encoding, of both earlier ones, and most names a person types. The name is
 * NFC-normalized first (its literal characters are, by construction), so a name a file
 * system handed back decomposed reads as written; escaped characters come back as they were.
 */
export function decodeFileStemLoosely(stem: string): string | undefined {
  let key = "";
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length > 0) key += decodeBytes(bytes);
    bytes = [];
  };
  for (const [token] of stem.normalize("NFC").matchAll(TOKEN)) {
    if (token.length === 3 && token.startsWith("%")) {
      bytes.push(Number.parseInt(token.slice(1), 16));
      continue;
    }
    flush();
    if (token === SEPARATOR) key += ":";
    else if (token.startsWith(UPPER_MARK) && token.length > 1) key += upperOf(token.slice(1)) ?? token;
    else key += token;
  }
  flush();
  return key;
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
  return [...Buffer.from(char, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
}

/** UTF-8 bytes as text; bytes that do not form UTF-8 stay as the `%XX` they were written as. */
function decodeBytes(bytes: number[]): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(new Uint8Array(bytes));
  } catch {
    return bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
  }
}
