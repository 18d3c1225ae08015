// Memory keys ↔ note file names: fs/file-names.ts's encoding of trimmed NFC keys; too long a key is refused, not hashed.
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { ToolError } from "../errors.js";
import { decodeFileStemLoosely, encodeFileStem } from "../fs/file-names.js";

/** Extension of a note file. */
export const NOTE_EXTENSION = ".md";
/** Most bytes a note's file name may take (common file systems allow 255). */
const MAX_NOTE_FILE_NAME_BYTES = 240;

/** A key as the store holds it: Unicode NFC, without surrounding white space. */
export function normalizeKey(key: string): string {
  return key.normalize("NFC").trim();
}

/** The normalized key encoded, then `.md` (`a%2Fb.md`: no key leaves the folder). Throws ToolError for an empty, ill-formed or too long key. */
export function keyToFileName(key: string): string {
  const normalized = normalizeKey(key);
  if (normalized === "") throw new ToolError('memory key is empty: give the note a short name such as "user-preferences"');
  let fileName: string;
  try {
    fileName = encodeFileStem(normalized) + NOTE_EXTENSION;
  } catch (error) {
    throw new ToolError(`memory ${(error as Error).message}`, { cause: error });
  }
  if (Buffer.byteLength(fileName, "utf8") > MAX_NOTE_FILE_NAME_BYTES) throw new ToolError(`memory key is too long (${normalized.length} characters): use a shorter name`);
  return fileName;
}

/** The key of a note file (any spelling, read loosely), or undefined for a file that is not a note (not `.md`, hidden, a temp file). */
export function fileNameToKey(fileName: string): string | undefined {
  if (!isNoteFile(fileName)) return undefined;
  return decodeFileStemLoosely(fileName.slice(0, -NOTE_EXTENSION.length))?.normalize("NFC");
}

/** Cheap test run on every name of the folder; agrees with `fileNameToKey` being defined. */
export function isNoteFile(fileName: string): boolean {
  return fileName.endsWith(NOTE_EXTENSION) && !fileName.startsWith(".") && fileName.length > NOTE_EXTENSION.length;
}

/** Where a key's note lives in `dir`: its file name, unless only another spelling of it exists, used in place (a person may have named it). Throws as `keyToFileName`. */
export async function noteFileOf(dir: string, key: string): Promise<{ key: string; name: string; path: string; exists: boolean }> {
  const name = keyToFileName(key);
  const normalized = normalizeKey(key);
  const exists = await stat(join(dir, name)).then((info) => info.isFile(), () => false);
  // Only a name with an escape, a case mark or a separator has another spelling.
  if (!exists && /[%^#]/.test(name)) {
    const names = await readdir(dir).catch(() => [] as string[]);
    const alias = names.find((other) => other !== name && fileNameToKey(other) === normalized);
    if (alias) return { key: normalized, name: alias, path: join(dir, alias), exists: true };
  }
  return { key: normalized, name, path: join(dir, name), exists };
}
