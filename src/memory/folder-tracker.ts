// The memory folder's files: keys ↔ note file names (NFC, trimmed; too long a key is refused, not hashed), and which changed since the last look.
import { statSync, watch, type FSWatcher } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { orFallback, ToolError } from "../errors.js";
import { decodeFileStemLoosely, encodeFileStem } from "../fs/file-names.js";
import { RACY_MS } from "../fs/regular-file.js";

/** What identifies one version of a file on disk. */
export type FileStamp = { mtimeMs: number; size: number; ino: number };

/** The files to (re)read, with their new stamps, and the files gone since the previous poll. */
export type FolderChanges = { changed: Map<string, FileStamp>; removed: string[] };

/** `accept` picks names; `watch` (default true) hears in-place edits, else each poll stats all; a full stat runs every `fullCheckIntervalMs`. */
export interface FolderTrackerOptions {
  accept: (fileName: string) => boolean;
  watch?: boolean;
  fullCheckIntervalMs?: number;
  now?: () => number;
}

/** Default interval of the full check while a watcher runs. */
const FULL_CHECK_INTERVAL_MS = 60_000;
// Stats run synchronously, several times faster than through the thread pool, in batches between which the event loop turns.
const STAT_BATCH = 500;

/** Runs `fn` over `items` with at most `limit` calls in flight. */
export async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Tracks one folder's files (not subfolders) by a watcher, the folder's mtime and a periodic full stat; `close()` when done. */
export class FolderTracker {
  private readonly known = new Map<string, FileStamp>();
  private dirty = new Set<string>();
  private watcher: FSWatcher | undefined;
  private watchedIno: number | undefined;
  private rescanAll = true;
  private lastFullAt = Number.NEGATIVE_INFINITY;
  private listedDirMtimeMs: number | undefined;
  private listedAt = 0;
  private watching: boolean;
  private readonly now: () => number;
  // The folder's path with a trailing separator; names from readdir are joined to it as they are.
  private readonly prefix: string;

  constructor(readonly dir: string, private readonly options: FolderTrackerOptions) {
    this.now = options.now ?? Date.now;
    this.prefix = join(dir, sep);
    this.watching = options.watch !== false;
  }

  stamp(fileName: string): FileStamp | undefined {
    return this.known.get(fileName);
  }

  /** Marks a file as changed, for writes this process made itself; costs no I/O. */
  touch(fileName: string): void {
    this.dirty.add(fileName);
  }

  /** Forgets a file whose read failed, so it is looked at afresh next time. */
  forget(fileName: string): void {
    this.known.delete(fileName);
  }

  /** Finds what changed since the previous poll; the first poll reports every file. */
  async poll(): Promise<FolderChanges> {
    // Lets pending watcher events in: two turns of the event loop guarantee one poll phase.
    if (this.watcher) await new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
    const dirStat = await stat(this.dir).catch(() => undefined);
    if (!dirStat?.isDirectory()) return this.vanished();
    if (this.watching && dirStat.ino !== this.watchedIno) this.startWatcher(dirStat.ino);
    const dirty = this.dirty;
    this.dirty = new Set();
    const now = this.now();
    if (!this.watcher || this.rescanAll || now - this.lastFullAt >= (this.options.fullCheckIntervalMs ?? FULL_CHECK_INTERVAL_MS)) {
      this.rescanAll = false;
      this.lastFullAt = now;
      return this.list(dirStat.mtimeMs, dirty, true);
    }
    // A directory mtime this close to the moment it was listed may hide a later change in the same tick.
    const racy = this.listedAt - (this.listedDirMtimeMs ?? 0) < RACY_MS;
    if (dirStat.mtimeMs !== this.listedDirMtimeMs || racy) return this.list(dirStat.mtimeMs, dirty, false);
    return this.restat([...dirty]);
  }

  /** Stops the watcher. The tracker still works afterwards, by full stats. */
  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.watching = false;
  }

  private vanished(): FolderChanges {
    const removed = [...this.known.keys()];
    this.known.clear();
    this.dirty.clear();
    this.listedDirMtimeMs = undefined;
    return { changed: new Map(), removed };
  }

  private startWatcher(ino: number): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.rescanAll = true;
    try {
      const watcher = watch(this.dir, { persistent: false }, (_event, fileName) => {
        if (typeof fileName !== "string") this.rescanAll = true;
        else if (this.options.accept(fileName)) this.dirty.add(fileName);
      });
      watcher.on("error", () => {
        watcher.close();
        if (this.watcher === watcher) this.watcher = undefined;
        this.watchedIno = undefined;
      });
      this.watcher = watcher;
      this.watchedIno = ino;
    } catch {
      // No watching here (some network and virtual file systems): every poll stats every file.
      this.watchedIno = ino;
    }
  }

  /** Lists the folder; stats new names, dirty names, and with `full` every name. */
  private async list(dirMtimeMs: number, dirty: Set<string>, full: boolean): Promise<FolderChanges> {
    // Compared with file system times, so the real wall clock, not the injected one.
    const listedAt = Date.now();
    const names = (await readdir(this.dir).catch(() => [] as string[])).filter(this.options.accept);
    const present = new Set(this.known.size > 0 ? names : []);
    const removed = [...this.known.keys()].filter((name) => !present.has(name));
    for (const name of removed) this.known.delete(name);
    const toStat = full ? names : names.filter((name) => dirty.has(name) || !this.known.has(name));
    const changes = await this.restat(toStat, full ? dirty : undefined);
    this.listedDirMtimeMs = dirMtimeMs;
    this.listedAt = listedAt;
    return { changed: changes.changed, removed: [...removed, ...changes.removed] };
  }

  /** Stats the given names: without `forced` reports every name that still exists, with it only those whose stamp moved or in that set. */
  private async restat(names: string[], forced?: Set<string>): Promise<FolderChanges> {
    const changes: FolderChanges = { changed: new Map(), removed: [] };
    for (let from = 0; from < names.length; from += STAT_BATCH) {
      if (from > 0) await new Promise((resolve) => setImmediate(resolve));
      this.statBatch(names, from, Math.min(names.length, from + STAT_BATCH), forced, changes);
    }
    return changes;
  }

  /** One batch of `restat`: a plain loop, which V8 optimizes while it runs (not a loop that awaits). */
  private statBatch(names: readonly string[], from: number, to: number, forced: Set<string> | undefined, changes: FolderChanges): void {
    for (let i = from; i < to; i++) {
      const name = names[i] as string;
      const info = orFallback(() => statSync(this.prefix + name, { throwIfNoEntry: false }), undefined);
      if (!info?.isFile()) {
        if (this.known.delete(name)) changes.removed.push(name);
        continue;
      }
      const known = this.known.get(name);
      if (forced === undefined || forced.has(name) || known?.mtimeMs !== info.mtimeMs || known.size !== info.size || known.ino !== info.ino) {
        const next = { mtimeMs: info.mtimeMs, size: info.size, ino: info.ino };
        this.known.set(name, next);
        changes.changed.set(name, next);
      }
    }
  }
}

/** Extension of a note file. */
const NOTE_EXTENSION = ".md";
/** Most bytes a note's file name may take (common file systems allow 255). */
const MAX_NOTE_FILE_NAME_BYTES = 240;

/** A key as the store holds it: Unicode NFC, without surrounding white space. */
function normalizeKey(key: string): string {
  return key.normalize("NFC").trim();
}

/** The normalized key encoded, then `.md` (`a%2Fb.md`: no key leaves the folder). Throws ToolError for an empty, ill-formed or too long key. */
export function keyToFileName(key: string): string {
  const normalized = normalizeKey(key);
  if (normalized === "") throw new ToolError('memory key is empty: give the note a short name such as "user-preferences"');
  const fileName = encodeFileStem(normalized, Infinity, (message) => new ToolError(`memory ${message}`)) + NOTE_EXTENSION;
  if (Buffer.byteLength(fileName, "utf8") > MAX_NOTE_FILE_NAME_BYTES) throw new ToolError(`memory key is too long (${normalized.length} characters): use a shorter name`);
  return fileName;
}

/** The key of a note file (any spelling, read loosely), or undefined for a file that is not a note (not `.md`, hidden, a temp file). */
export function fileNameToKey(fileName: string): string | undefined {
  if (!isNoteFile(fileName)) return undefined;
  return decodeFileStemLoosely(fileName.slice(0, -NOTE_EXTENSION.length))?.normalize("NFC");
}

/** Cheap test run on every name of the folder; agrees with `fileNameToKey` being defined. */
export function isNoteFile(fileName: string): boolean {
  return fileName.endsWith(NOTE_EXTENSION) && !fileName.startsWith(".") && fileName.length > NOTE_EXTENSION.length;
}

/** Where a key's note lives in `dir`: its file name, unless only another spelling of it exists, used in place (a person may have named it). Throws as `keyToFileName`. */
export async function noteFileOf(dir: string, key: string): Promise<{ key: string; name: string; path: string; exists: boolean }> {
  const name = keyToFileName(key);
  const normalized = normalizeKey(key);
  const exists = await stat(join(dir, name)).then((info) => info.isFile(), () => false);
  // Only a name with an escape, a case mark or a separator has another spelling.
  if (!exists && /[%^#]/.test(name)) {
    const names = await readdir(dir).catch(() => [] as string[]);
    const alias = names.find((other) => other !== name && fileNameToKey(other) === normalized);
    if (alias) return { key: normalized, name: alias, path: join(dir, alias), exists: true };
  }
  return { key: normalized, name, path: join(dir, name), exists };
}
