// Memory keys ↔ file names: a reversible encoding that keeps every key inside the memory folder.
import { MiniclawError } from "../errors.js";

/** Extension of a note file. */
export const NOTE_EXTENSION = ".md";
/** Most bytes a note's file name may take (common file systems allow 255). */
export const MAX_NOTE_FILE_NAME_BYTES = 240;

// Letters, marks and digits of any script, plus a few plain punctuation marks, stay readable on disk.
const KEPT = /^[\p{L}\p{M}\p{N} _\-.,()+=@!~']$/u;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i;
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

function escape(char: string): string {
  return [...Buffer.from(char, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
}

/** A key as the store holds it: Unicode NFC, without surrounding white space. */
export function normalizeKey(key: string): string {
  return key.normalize("NFC").trim();
}

/**
 * The file name of a key: kept characters as they are, every other character (slashes,
 * `%`, control characters, a leading dot, a trailing dot or space) as `%XX` bytes, then `.md`.
 * So `..`, `a/b` and `.` all land inside the folder as ordinary files. Throws a
 * `MiniclawError` for an empty key or one whose file name would be too long.
 */
export function keyToFileName(key: string): string {
  const normalized = normalizeKey(key);
  if (normalized === "") throw new MiniclawError("memory key is empty: give the note a short name such as \"user-preferences\"");
  const chars = [...normalized];
  const last = chars.length - 1;
  let name = chars
    .map((char, index) => {
      const edge = (index === 0 && char === ".") || (index === last && (char === "." || char === " "));
      return KEPT.test(char) && !edge ? char : escape(char);
    })
    .join("");
  if (WINDOWS_RESERVED.test(name)) name = escape(name.charAt(0)) + name.slice(1);
  const fileName = name + NOTE_EXTENSION;
  if (Buffer.byteLength(fileName, "utf8") > MAX_NOTE_FILE_NAME_BYTES) {
    throw new MiniclawError(`memory key is too long (${normalized.length} characters): use a shorter name`);
  }
  return fileName;
}

/**
 * The key of a note file, or undefined for a file that is not a note (not `.md`, hidden,
 * or a temporary file). Lenient: a `%` sequence that does not decode stays as written,
 * so a file dropped in by hand still has a key to show.
 */
export function fileNameToKey(fileName: string): string | undefined {
  if (!fileName.endsWith(NOTE_EXTENSION) || fileName.startsWith(".")) return undefined;
  const stem = fileName.slice(0, -NOTE_EXTENSION.length);
  if (stem === "") return undefined;
  const key = stem.replace(ESCAPES, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
  return key.normalize("NFC");
}
