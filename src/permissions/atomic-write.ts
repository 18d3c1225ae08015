// Atomic file replacement: write a temp file in the same folder, flush it, rename it over the target.
import { randomUUID } from "node:crypto";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Writes `data` to `path` so that readers see the old content or the new, never
 * a torn file. Creates missing parent folders; keeps the mode of a file it
 * replaces. The temp file sits beside the target (same file system, so the
 * rename is atomic) and is removed if anything fails.
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
}
