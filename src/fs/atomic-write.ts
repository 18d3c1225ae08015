// Atomic file replacement: write a temp file beside the target, fsync it, rename it over the target, fsync the folder.
import { randomUUID } from "node:crypto";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Readers see old or new, never torn; durable once it resolves. Creates folders, keeps the mode; a failure removes the temp file, the target as it was. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const mode = await stat(path).then((s) => s.mode & 0o7777, () => 0o666);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      await handle.writeFile(data);
      // Before the rename: else the rename can reach the disk before the data, leaving an empty file.
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await syncFolder(dir);
}

/** Makes a name created, renamed or removed in `dir` durable. Best effort: some platforms cannot open or fsync a folder. */
export async function syncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Windows (EPERM, EISDIR) and some network file systems (EINVAL): the rename itself has happened.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
