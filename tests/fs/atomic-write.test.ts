// writeFileAtomic: the new content whole, or the old content whole when the write fails; nothing left behind.
import { chmod, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../src/fs/atomic-write.js";
import { makeTempDir } from "../helpers/tool-context.js";

describe("writeFileAtomic", () => {
  it("replaces a file, keeps its mode, creates missing folders and leaves no temp file", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "a", "b", "note.txt");
    await writeFileAtomic(path, "first");
    await chmod(path, 0o600);
    await writeFileAtomic(path, "second");
    expect(await readFile(path, "utf8")).toBe("second");
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, "a", "b"))).toEqual(["note.txt"]);
  });

  it("leaves what is at the target whole, and no temp file, when the rename fails (the target is a folder)", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "target");
    await mkdir(path);
    await writeFile(join(path, "inside.txt"), "kept");
    await expect(writeFileAtomic(path, "new")).rejects.toThrow();
    expect(await readdir(path)).toEqual(["inside.txt"]);
    expect(await readFile(join(path, "inside.txt"), "utf8")).toBe("kept");
    expect(await readdir(dir)).toEqual(["target"]);
  });

  it("leaves the old file whole when its folder is read-only", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "note.txt");
    await writeFile(path, "old content");
    await chmod(dir, 0o555);
    try {
      await expect(writeAsUnprivileged(path, "new content")).rejects.toThrow(/EACCES|EPERM/);
      expect(await readFile(path, "utf8")).toBe("old content");
      expect(await readdir(dir)).toEqual(["note.txt"]);
    } finally {
      await chmod(dir, 0o755);
    }
  });

  it("never shows a reader a torn file while many writes replace it", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "big.txt");
    const versions = ["a", "b", "c", "d", "e", "f"].map((c) => c.repeat(256 * 1024));
    await writeFileAtomic(path, versions[0]!);
    let reads = 0;
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const text = await readFile(path, "utf8");
        expect(versions.includes(text)).toBe(true);
        reads += 1;
      }
    })();
    for (const version of versions) await writeFileAtomic(path, version);
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect(await readdir(dir)).toEqual(["big.txt"]);
  });
});

/**
 * writeFileAtomic run by a user the folder's mode applies to: this process itself, or, when it runs as
 * root (whom modes do not stop, as in CI containers), a child that drops to the unprivileged `nobody` first.
 */
async function writeAsUnprivileged(path: string, content: string): Promise<void> {
  if (process.getuid?.() !== 0) return writeFileAtomic(path, content);
  // The module goes in as a data: URL (it imports only node: builtins): `nobody` may not read this checkout.
  const source = readFileSync(fileURLToPath(new URL("../../dist/fs/atomic-write.js", import.meta.url)), "utf8");
  const module = `data:text/javascript;base64,${Buffer.from(source).toString("base64")}`;
  const script = `process.setgid(65534); process.setuid(65534);
    const { writeFileAtomic } = await import(${JSON.stringify(module)});
    await writeFileAtomic(${JSON.stringify(path)}, ${JSON.stringify(content)}).catch((e) => { console.error(e.message); process.exit(3); });`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  if (child.status !== 0) throw new Error(child.stderr.trim() || `writer exited ${child.status}`);
}
