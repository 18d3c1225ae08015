// Files that must be regular (a FIFO or device is refused, never waited on), whole lines appended though writers may die
// mid-line, and how far a file's times tell a change (the "racy" window, as git's index knows it).
import { closeSync, constants, fdatasync, fstatSync, openSync, readFileSync, readSync, type Stats, writeFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { promisify } from "node:util";

const notRegular = (): Error => new Error("not a regular file");

/** Opens `path` with `flags` plus O_NONBLOCK (a FIFO with no writer would hold the open for ever) and returns its descriptor and size; anything but a regular file is refused. */
export function openRegularSync(path: string, flags: number = constants.O_RDONLY, mode?: number): { fd: number; size: number } {
  const fd = openSync(path, flags | constants.O_NONBLOCK, mode);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw notRegular();
    return { fd, size: info.size };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** As `openRegularSync`, for reading, on the thread pool: resolves to the open handle (the caller closes it) and the file's size. */
export async function openRegular(path: string): Promise<{ handle: FileHandle; size: number }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular();
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The text of a regular file, read synchronously (for small files read on every turn). Throws for anything else at `path`. */
export function readRegularFileSync(path: string): string {
  const { fd } = openRegularSync(path);
  try {
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** As `readFile(path, "utf8")`, but a FIFO, a device or a folder at `path` is refused (rejects) instead of read or waited on. */
export async function readRegularText(path: string): Promise<string> {
  return (await readRegularFile(path)).toString("utf8");
}

/** The bytes of a regular file, in one request to the thread pool where the size allows (chunks would wait for the event loop). Rejects for anything else. */
export async function readRegularFile(path: string): Promise<Buffer> {
  const { handle, size } = await openRegular(path);
  try {
    // A size of 0 may not be the truth (a file written meanwhile): read to the end then.
    if (size === 0) return await handle.readFile();
    const buffer = Buffer.allocUnsafe(size);
    let length = 0;
    while (length < size) {
      const { bytesRead } = await handle.read(buffer, length, size - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

const fdatasyncAsync = promisify(fdatasync);
/** "a" less the access mode; openRegularSync adds O_NONBLOCK, so a FIFO in the file's place fails instead of waiting. */
export const APPEND_FLAGS = constants.O_APPEND | constants.O_CREAT;

/**
 * Appends whole lines in one O_APPEND write, `header()` first to an empty file, a newline first after a torn line. Flushed
 * on the thread pool with `sync`, else synchronous (microseconds, not ~0.3 ms). Resolves to whether the file was empty.
 */
export async function appendLines(file: string, text: string, options: { header?: (() => string) | undefined; sync?: boolean } = {}): Promise<boolean> {
  const { fd, size } = openRegularSync(file, constants.O_RDWR | APPEND_FLAGS, 0o666);
  try {
    const prefix = size === 0 ? (options.header?.() ?? "") : readAt(fd, size - 1, 1)[0] === 0x0a ? "" : "\n";
    // writeFileSync on a descriptor writes on after a short write (a full disk) until all is written or it fails.
    writeFileSync(fd, prefix + text);
    if (options.sync) await fdatasyncAsync(fd);
    return size === 0;
  } finally {
    closeSync(fd);
  }
}

/** Up to `length` bytes of `fd` from `position`, fewer at the end of the file; synchronous. */
export function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let filled = 0;
  while (filled < length) {
    const bytesRead = readSync(fd, buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) return buffer.subarray(0, filled);
    filled += bytesRead;
  }
  return buffer;
}

/** A file whose times are this recent may change again within a coarse file system's clock tick without them moving. */
export const RACY_MS = 2_000;

/** Names this version of a file by its stat, or "" when its times are within RACY_MS of `now` (a cache must not trust it). */
export function fileVersion(stats: Stats, now: number): string {
  if (now - Math.max(stats.mtimeMs, stats.ctimeMs) < RACY_MS) return "";
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}
