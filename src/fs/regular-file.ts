// Reading a file that must be a regular one: a FIFO or a device in its place is refused, never waited on.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";

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
