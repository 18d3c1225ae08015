// How far a file's times can be trusted to tell a change: the "racy" window, as git's index knows it.
import type { Stats } from "node:fs";

/**
 * A file (or folder) whose modification or change time is this recent may change again within the
 * same clock tick of a coarse file system without its times moving: a read that recent is not
 * trusted to stay current on its times alone.
 */
export const RACY_MS = 2_000;

/**
 * Names this version of a file by its stat (device, inode, size, modification and change times),
 * or "" when those times are within RACY_MS of `now`: a cache keyed by it is then not to be trusted.
 */
export function fileVersion(stats: Stats, now: number): string {
  if (now - Math.max(stats.mtimeMs, stats.ctimeMs) < RACY_MS) return "";
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}
