// Atomic file replacement: write a temp file beside the target, fsync it, rename it over the target, fsync the folder.
import { randomUUID } from "node:crypto";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `data` to `path` so that readers see the old content or the new, never a
 * torn file, and so that the new content survives a power loss once this resolves:
 * the temp file is fsynced before the rename (else the rename can reach the disk
 * before the data, leaving an empty file), and the folder after it (else the rename
 * itself can be lost). Creates missing parent folders; keeps the mode of a file it
 * replaces. The temp file (`.<name>.<pid>.<random>.tmp`, hidden, so folder scans skip
 * it) sits beside the target on the same file system, so the rename is atomic; it is
 * removed if anything fails, and the target is then left exactly as it was.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true });
  const mode = await stat(path).then(
    (s) => s.mode & 0o7777,
    () => 0o666,
  );
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      await handle.writeFile(data);
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

/**
 * Flushes a folder's entries (a rename lives in the folder, not the file). Some
 * platforms cannot open or fsync a folder (Windows: EPERM/EISDIR; some network file
 * systems: EINVAL): the rename has happened, so those are ignored rather than
 * reported as a failed write.
 */
/** Makes a name created or removed in `dir` durable; best effort where a folder cannot be synced. */
export async function syncFolder(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Best effort, see above.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
