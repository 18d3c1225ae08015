// How far a file's times can be trusted to tell a change: the "racy" window, as git's index knows it.
import type { Stats } from "node:fs";

/** A file whose times are this recent may change again within a coarse file system's clock tick without them moving. */
export const RACY_MS = 2_000;

/** Names this version of a file by its stat, or "" when its times are within RACY_MS of `now` (a cache must not trust it). */
export function fileVersion(stats: Stats, now: number): string {
  if (now - Math.max(stats.mtimeMs, stats.ctimeMs) < RACY_MS) return "";
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}
