// The shared lock file: a live holder is waited for, a dead one is taken over at once, each caller gets its own error class.
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { symlink } from "node:fs/promises";
import { join, relative as relativePath } from "node:path";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/deps.js";
import { ConfigError } from "../../src/errors.js";
import { acquireFileLock, isFileLockHeld, withFileLock, type FileLockOptions } from "../../src/fs/file-lock.js";
import { removeAfterFile } from "../helpers/temp-dir.js";
import { makeTempDir } from "../helpers/tool-context.js";

const options = (timeoutMs: number): FileLockOptions => ({
  timeoutMs,
  clock: systemClock,
  label: "thing",
  subject: "t1",
  makeError: (message, cause) => new ConfigError(message, cause === undefined ? undefined : { cause }),
});

describe("file lock", () => {
  it("runs callers of one process one after another and removes the file after the last", async () => {
    const lockPath = join(await makeTempDir(), "x.lock");
    const order: string[] = [];
    const step = (name: string) => async () => {
      order.push(`${name} in`);
      expect(isFileLockHeld(lockPath)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push(`${name} out`);
    };
    await Promise.all([withFileLock(lockPath, options(2_000), step("a")), withFileLock(lockPath, options(2_000), step("b"))]);
    expect(order).toEqual(["a in", "a out", "b in", "b out"]);
    expect(isFileLockHeld(lockPath)).toBe(false);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("waits for a live holder's lock and then throws the caller's error, naming the holder and the file", async () => {
    const lockPath = join(await makeTempDir(), "x.lock");
    writeFileSync(lockPath, JSON.stringify({ pid: process.ppid, hostname: hostname(), ts: Date.now(), token: "alive" }));
    const started = Date.now();
    const error = await acquireFileLock(lockPath, options(200)).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(new RegExp(`^thing busy: t1 is locked by process ${process.ppid} since .* \\(waited 200 ms; lock file .*x\\.lock\\)$`));
  });

  it("takes over at once a fresh lock whose holder is dead", async () => {
    const lockPath = join(await makeTempDir(), "x.lock");
    const pid = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
      child.on("exit", () => resolve(child.pid ?? -1));
    });
    writeFileSync(lockPath, JSON.stringify({ pid, hostname: hostname(), ts: Date.now(), token: "dead" }));
    const started = Date.now();
    const release = await acquireFileLock(lockPath, options(5_000));
    expect(Date.now() - started).toBeLessThan(500);
    await release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it("is not taken over by the same process naming the file another way (relative, through a symlink): the second waits", async () => {
    const dir = await makeTempDir();
    const link = removeAfterFile(`${dir}-link`);
    await symlink(dir, link);
    const release = await acquireFileLock(join(dir, "x.lock"), options(2_000));
    await expect(acquireFileLock(join(link, "x.lock"), options(150))).rejects.toThrow(/thing busy: t1/);
    const relative = join(relativePath(process.cwd(), dir), "x.lock");
    await expect(acquireFileLock(relative, options(150))).rejects.toThrow(/thing busy: t1/);
    await release();
    const again = await acquireFileLock(join(link, "x.lock"), options(2_000));
    await again();
  });
});
