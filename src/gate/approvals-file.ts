// workspace/exec-approvals.json: reading it (a bad file warns and approves nothing) and adding to it (locked, merged, atomic).
import { statSync, type Stats } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import * as z from "zod";
import { broadPatternReason, isToolEntry, normalizeCommand } from "./approval-entries.js";
import { systemClock } from "../deps.js";
import { MiniclawError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { fileVersion } from "../fs/racy.js";
import { readRegularFileSync } from "../fs/regular-file.js";
import { withFileLock } from "../fs/file-lock.js";

/** The file's schema. Unknown fields are kept, so later versions can add patterns, timestamps... */
export const approvalsFileSchema = z.looseObject({
  allowed: z.array(z.string()).default([]),
  denied: z.array(z.string()).default([]),
});

export type ApprovalsFile = z.infer<typeof approvalsFileSchema>;

/** The two lists, as `checkCommandSafety` takes them. */
export interface Approvals {
  allowed: string[];
  denied: string[];
}

/** Receives one-line warnings meant for the user (core code never prints). */
export type WarningSink = (message: string) => void;

type ReadResult = { ok: true; data: ApprovalsFile } | { ok: false; problem: string };

/** Longest a read is trusted on its stat alone: a network file system may answer a stat from its cache. */
const REREAD_MS = 2_000;

/**
 * Reads the lists, for a gate that looks at the file before every call. A missing or empty file
 * is empty lists. A corrupt or invalid file is reported through `onWarning` (naming the file and
 * the problem), left untouched, and treated as empty: nothing approved. Allowed entries that are
 * too broad (`rm *`, `*`) are left out, with a warning each; tool names and globs
 * (`mcp__github__*`) are kept for the tools that are not commands.
 *
 * Each call is one synchronous stat; the file is read again when its device, inode, size,
 * modification or change time differ, when it changed within the last two seconds, or when the
 * last read is two seconds old. An edit by the user or another process is seen at the next call;
 * the warnings of a bad file come once per version of it. `clock` is the system's wall clock, the
 * one file times are written in (a test moves it ahead).
 */
export function approvalsReader(path: string, onWarning?: WarningSink, clock: () => number = Date.now): () => Approvals {
  let seen: { version: string; readAt: number; lists: Approvals } | undefined;
  return () => {
    const now = clock();
    const state = fileState(path);
    if ("result" in state) return listsOf(path, state.result, onWarning);
    const { stats } = state;
    const version = fileVersion(stats, now);
    if (version !== "" && seen?.version === version && now - seen.readAt < REREAD_MS) return seen.lists;
    const lists = listsOf(path, readContents(path), onWarning);
    seen = { version, readAt: now, lists };
    return lists;
  };
}

/** The lists of a read file, without the allowed entries too broad to keep; each problem a warning. */
function listsOf(path: string, result: ReadResult, onWarning?: WarningSink): Approvals {
  if (!result.ok) {
    onWarning?.(`${path}: ${result.problem}. The file was left as it is; until it is fixed no command is approved or denied by it.`);
    return { allowed: [], denied: [] };
  }
  const allowed = result.data.allowed.filter((entry) => {
    const broad = broadPatternReason(entry);
    // A tool glob such as `mcp__github__*` is broad as a command; the command gate re-checks every entry and ignores it.
    if (broad === null || isToolEntry(entry)) return true;
    onWarning?.(`${path}: the allowed entry "${entry}" is ignored: ${broad}. Write a narrower one, such as the exact command.`);
    return false;
  });
  return { allowed, denied: result.data.denied };
}

/** Longest wait for another process's save: each holds the lock for one read-merge-write, milliseconds. */
const APPROVALS_LOCK_TIMEOUT_MS = 5_000;

/**
 * Adds commands to the lists. Under a lock file beside it (`<file>.lock`, the same
 * lock as sessions: a crashed saver's lock is taken over at once), re-reads the
 * file, takes the union, and replaces it atomically (fsynced), so concurrent savers
 * lose nothing. Resolves false (after a warning) without writing when the file on
 * disk is corrupt or invalid; rejects with a MiniclawError on I/O errors or a lock
 * held by a live process for more than five seconds.
 */
export async function addApprovals(
  path: string,
  additions: { allowed?: readonly string[]; denied?: readonly string[] },
  onWarning?: WarningSink,
): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  const lock = {
    timeoutMs: APPROVALS_LOCK_TIMEOUT_MS,
    clock: systemClock,
    label: "approvals file",
    subject: path,
    makeError: (message: string, cause?: unknown) => new MiniclawError(message, cause === undefined ? undefined : { cause }),
  };
  return withFileLock(`${path}.lock`, lock, async () => {
    const current = readApprovalsFile(path);
    if (!current.ok) {
      onWarning?.(`${path}: ${current.problem}. The decision was not saved and the file was left as it is.`);
      return false;
    }
    const next: ApprovalsFile = {
      ...current.data,
      allowed: union(current.data.allowed, additions.allowed),
      denied: union(current.data.denied, additions.denied),
    };
    await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
    return true;
  });
}

/** A missing or empty file: empty lists, new each time (callers get the arrays). */
const empty = (): ReadResult => ({ ok: true, data: { allowed: [], denied: [] } });

/** The file and its lists, read synchronously: the file is small and local. */
function readApprovalsFile(path: string): ReadResult {
  const state = fileState(path);
  return "result" in state ? state.result : readContents(path);
}

/**
 * The file's stat, or what reading it comes to without reading: missing is empty lists, and only
 * a regular file is read (a FIFO or a device in its place would block the process).
 */
function fileState(path: string): { stats: Stats } | { result: ReadResult } {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return { result: empty() };
    return stats.isFile() ? { stats } : { result: { ok: false, problem: "cannot be read (it is not a regular file)" } };
  } catch (error) {
    return { result: { ok: false, problem: `cannot be read (${(error as Error).message})` } };
  }
}

function readContents(path: string): ReadResult {
  try {
    return parseApprovals(readRegularFileSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return empty();
    return { ok: false, problem: `cannot be read (${(error as Error).message})` };
  }
}

function parseApprovals(text: string): ReadResult {
  if (text.trim() === "") return empty();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `is not valid JSON (${(error as Error).message})` };
  }
  const parsed = approvalsFileSchema.safeParse(json);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "top level"}: ${issue.message}`);
  return { ok: false, problem: `is not a valid approvals file (${issues.join("; ")}); expected {"allowed": [...], "denied": [...]}` };
}

function union(existing: readonly string[], added: readonly string[] = []): string[] {
  return [...new Set([...existing, ...added.map(normalizeCommand)])];
}
