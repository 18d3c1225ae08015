// workspace/exec-approvals.json: its entries as the gate reads them, reading it (a bad file approves nothing) and adding to it (locked, atomic).
import { statSync, type Stats } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import * as z from "zod";
import { systemClock } from "../deps.js";
import { messageOf, MiniclawError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { withFileLock } from "../fs/file-lock.js";
import { readRegularFileSync, fileVersion } from "../fs/regular-file.js";

/** The `{allowed, denied}` lists of the approvals file, as `checkCommandSafety` takes them. */
export interface ApprovalLists {
  allowed?: readonly string[];
  denied?: readonly string[];
}

/** The form in which commands are compared and stored: surrounding whitespace removed, nothing else changed. */
export function normalizeCommand(command: string): string {
  return command.trim();
}

/** Why an allowed entry is too broad to honour, or null: its program is a wildcard (`* -rf`), or its arguments only wildcards and options (`rm *`, `bash *`). */
export function broadPatternReason(entry: string): string | null {
  const [program, ...args] = entry.trim().split(/\s+/).filter((w) => w !== "");
  if (program === undefined) return null;
  if (/[*?[]/.test(program)) return "its program is a wildcard, so it approves any command";
  if (args.includes("*") && args.every((w) => w === "*" || w.startsWith("-"))) return `it approves every use of ${program}`;
  return null;
}

/** An entry that names tools rather than a command: the characters of tool names, with `*` and `?` as wildcards. */
const TOOL_ENTRY = /^[A-Za-z0-9_*?-]+$/;

/** Whether an allowed entry can approve tools: a tool name, or a glob of them that starts with a literal (`mcp__github__*`; `*_file` approves none). */
export function isToolEntry(entry: string): boolean {
  return TOOL_ENTRY.test(entry) && !/^[*?]/.test(entry);
}

/** Whether an entry names the tool, exactly or as a glob; with `narrowOnly` (allowed lists) none starting with a wildcard; a denied `*` denies every tool. */
export function matchesToolName(name: string, entries: readonly string[], narrowOnly: boolean): boolean {
  return entries.some((entry) => TOOL_ENTRY.test(entry) && (!narrowOnly || isToolEntry(entry)) && compileGlob(entry).test(name));
}

const MAX_CACHED_GLOBS = 1_000;
const globCache = new Map<string, RegExp>();

/** A tool-name glob as a cached RegExp of the whole name: `*` any characters, `?` one, the rest literal, case kept. */
export function compileGlob(glob: string): RegExp {
  const cached = globCache.get(glob);
  if (cached !== undefined) return cached;
  const source = [...glob].map((char) => (char === "*" ? ".*" : char === "?" ? "." : char.replace(/[.+^${}()|[\]\\/]/g, "\\$&"))).join("");
  const pattern = new RegExp(`^${source}$`, "su");
  if (globCache.size >= MAX_CACHED_GLOBS) globCache.clear();
  globCache.set(glob, pattern);
  return pattern;
}

/** The file's schema. Unknown fields are kept, so later versions can add patterns, timestamps... */
const schema = z.looseObject({ allowed: z.array(z.string()).default([]), denied: z.array(z.string()).default([]) });
type ApprovalsFile = z.infer<typeof schema>;
/** Receives one-line warnings meant for the user (core code never prints). */
export type WarningSink = (message: string) => void;
type ReadResult = { ok: true; data: ApprovalsFile } | { ok: false; problem: string };
/** Longest a read is trusted on its stat alone: a network file system may answer a stat from its cache. */
const REREAD_MS = 2_000;
/** Longest wait for another process's save: each holds the lock for one read-merge-write. */
const LOCK_TIMEOUT_MS = 5_000;

/**
 * Reads the lists before every call: one stat, a read when the file changed (or within two seconds of it). Missing: empty lists. Corrupt: a warning, the file
 * untouched, nothing approved or denied. Allowed entries too broad to honour (`rm *`) are left out with a warning. `clock` is the files' wall clock.
 */
export function approvalsReader(path: string, onWarning?: WarningSink, clock: () => number = Date.now): () => { allowed: string[]; denied: string[] } {
  let seen: { version: string; readAt: number; lists: { allowed: string[]; denied: string[] } } | undefined;
  return () => {
    const now = clock();
    let stats: Stats | undefined;
    try {
      stats = statSync(path, { throwIfNoEntry: false });
    } catch (error) {
      return listsOf(path, unreadable(error), onWarning);
    }
    const version = stats?.isFile() ? fileVersion(stats, now) : "";
    if (version !== "" && seen?.version === version && now - seen.readAt < REREAD_MS) return seen.lists;
    const lists = listsOf(path, readApprovalsFile(path, stats), onWarning);
    if (version !== "") seen = { version, readAt: now, lists };
    return lists;
  };
}

/** The lists of a read file, without the allowed entries too broad to keep; each problem a warning. */
function listsOf(path: string, result: ReadResult, onWarning?: WarningSink): { allowed: string[]; denied: string[] } {
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

/** Adds entries under `<file>.lock`: re-read, union, atomic replace, so savers lose nothing. Resolves false (warned) for a corrupt file; rejects on I/O or a busy lock. */
export async function addApprovals(path: string, additions: { allowed?: readonly string[]; denied?: readonly string[] }, onWarning?: WarningSink): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  const makeError = (message: string, cause?: unknown): Error => new MiniclawError(message, cause === undefined ? undefined : { cause });
  return withFileLock(`${path}.lock`, { timeoutMs: LOCK_TIMEOUT_MS, clock: systemClock, label: "approvals file", subject: path, makeError }, async () => {
    let current: ReadResult;
    try {
      current = readApprovalsFile(path, statSync(path, { throwIfNoEntry: false }));
    } catch (error) {
      current = unreadable(error);
    }
    if (!current.ok) {
      onWarning?.(`${path}: ${current.problem}. The decision was not saved and the file was left as it is.`);
      return false;
    }
    const union = (existing: readonly string[], added: readonly string[] = []): string[] => [...new Set([...existing, ...added.map(normalizeCommand)])];
    const next: ApprovalsFile = { ...current.data, allowed: union(current.data.allowed, additions.allowed), denied: union(current.data.denied, additions.denied) };
    await writeFileAtomic(path, `${JSON.stringify(next, null, 2)}\n`);
    return true;
  });
}

/** A missing or empty file: empty lists, new each time (callers get the arrays). */
const empty = (): ReadResult => ({ ok: true, data: { allowed: [], denied: [] } });
const unreadable = (error: unknown): ReadResult => ({ ok: false, problem: `cannot be read (${messageOf(error)})` });

/** The file and its lists, by its stat: missing is empty, only a regular file is read (a FIFO would block); synchronously, as it is small and local. */
function readApprovalsFile(path: string, stats: Stats | undefined): ReadResult {
  if (stats === undefined) return empty();
  if (!stats.isFile()) return { ok: false, problem: "cannot be read (it is not a regular file)" };
  let text: string;
  try {
    text = readRegularFileSync(path);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? empty() : unreadable(error);
  }
  if (text.trim() === "") return empty();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `is not valid JSON (${messageOf(error)})` };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, data: parsed.data };
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "top level"}: ${issue.message}`);
  return { ok: false, problem: `is not a valid approvals file (${issues.join("; ")}); expected {"allowed": [...], "denied": [...]}` };
}
