// Appending whole lines to a file whose writers may die mid-line: one O_APPEND write, a torn tail closed first.
import { closeSync, constants, fdatasync, readSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { openRegularSync } from "./regular-file.js";

const fdatasyncAsync = promisify(fdatasync);
/** "a" less the access mode; openRegularSync adds O_NONBLOCK, so a FIFO in the file's place fails instead of waiting. */
export const APPEND_FLAGS = constants.O_APPEND | constants.O_CREAT;

/**
 * Appends `text` (whole lines) to `file` in one O_APPEND write, creating it: `header()` first when it is empty, a newline
 * first when it does not end with one (nothing is fused onto a torn line). With `sync`, flushed (on the thread pool).
 * Resolves to whether the file was empty. Synchronous otherwise: microseconds, where the thread pool costs ~0.3 ms.
 */
export async function appendLines(file: string, text: string, options: { header?: (() => string) | undefined; sync?: boolean } = {}): Promise<boolean> {
  const { fd, size } = openRegularSync(file, constants.O_RDWR | APPEND_FLAGS, 0o666);
  try {
    const prefix = size === 0 ? (options.header?.() ?? "") : endsWithNewline(fd, size) ? "" : "\n";
    // writeFileSync on a descriptor writes on after a short write (a full disk) until all is written or it fails.
    writeFileSync(fd, prefix + text);
    if (options.sync) await fdatasyncAsync(fd);
    return size === 0;
  } finally {
    closeSync(fd);
  }
}

function endsWithNewline(fd: number, size: number): boolean {
  const buffer = Buffer.alloc(1);
  readSync(fd, buffer, 0, 1, size - 1);
  return buffer[0] === 0x0a;
}
