// Memory keys ↔ note file names: the shared encoding of fs/file-names.ts, plus what notes need of their own.
//
// Where note names differ from session names, and why:
// - keys are trimmed and NFC-normalized first: a model or a person types them, and `café` typed
//   two ways must be one note (session keys are identifiers built by code, never normalized);
// - a key too long for a file name is refused, not hashed: a note's key is read back from its
//   file name alone (a session keeps its key in a header record);
// - names are read loosely: a note dropped in by hand (`100%.md`, `Groceries list.md`) or written
//   under the earlier encoding (`Project Alpha.md`) is still found under its key.
import { ToolError } from "../errors.js";
import { decodeFileStemLoosely, encodeFileStem } from "../fs/file-names.js";

/** Extension of a note file. */
export const NOTE_EXTENSION = ".md";
/** Most bytes a note's file name may take (common file systems allow 255). */
export const MAX_NOTE_FILE_NAME_BYTES = 240;

/** A key as the store holds it: Unicode NFC, without surrounding white space. */
export function normalizeKey(key: string): string {
  return key.normalize("NFC").trim();
}

/**
 * The file name of a key: the shared encoding of its normalized form, then `.md`
 * (`user-preferences.md`, `^project ^alpha.md`, `a%2Fb.md`). So `..`, `a/b` and `.` all
 * land inside the folder as ordinary files. Throws a `ToolError` (the model named the note) for an empty key,
 * one that is not well-formed Unicode, or one whose file name would be too long.
 */
export function keyToFileName(key: string): string {
  const normalized = normalizeKey(key);
  if (normalized === "") throw new ToolError('memory key is empty: give the note a short name such as "user-preferences"');
  let fileName: string;
  try {
    fileName = encodeFileStem(normalized) + NOTE_EXTENSION;
  } catch (error) {
    throw new ToolError(`memory ${(error as Error).message}`, { cause: error });
  }
  if (Buffer.byteLength(fileName, "utf8") > MAX_NOTE_FILE_NAME_BYTES) {
    throw new ToolError(`memory key is too long (${normalized.length} characters): use a shorter name`);
  }
  return fileName;
}

/**
 * The key of a note file, or undefined for a file that is not a note (not `.md`, hidden,
 * or a temporary file). Lenient (see above): any spelling yields a key to show.
 */
export function fileNameToKey(fileName: string): string | undefined {
  if (!fileName.endsWith(NOTE_EXTENSION) || fileName.startsWith(".")) return undefined;
  const stem = fileName.slice(0, -NOTE_EXTENSION.length);
  if (stem === "") return undefined;
  return decodeFileStemLoosely(stem)?.normalize("NFC");
}

/**
 * True when a key's note may also sit under another spelling (hand-written or of the
 * earlier encoding): only a name with an escape, a case mark or a separator has one.
 */
export function hasOtherSpellings(fileName: string): boolean {
  return /[%^#]/.test(fileName);
}
