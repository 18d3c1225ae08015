// MemoryStore: long-term notes as `<dir>/<key>.md`, shared by all agents, with ranked full-text search.
import { readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { MiniclawError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readRegularText, RACY_MS } from "../fs/regular-file.js";
import { fileNameToKey, forEachLimited, FolderTracker, isNoteFile, noteFileOf, type FolderTrackerOptions } from "./folder-tracker.js";
import { changesSince, readIndexFile, writeIndexFile } from "./index-file.js";
import { holdsTerms, NoteIndex, type IndexHit } from "./search-index.js";
import { makeSnippet } from "./postings.js";

/** A note's key, its last write (the file's mtime: hand edits count) and size. */
export type MemoryEntry = { key: string; updated: Date; size: number };

/** A whole note. */
export interface MemoryNote extends MemoryEntry {
  content: string;
}

/** One search result: the note's key, its BM25+ score (only the order means anything), a window around the match, and the note's absolute path. */
export type MemorySearchResult = { key: string; score: number; snippet: string; updated: Date; path: string };

/** Options of a `MemoryStore`: `persistIndex` keeps the index in a file for the next process (default true), once there are `persistMinNotes` (default 200). */
export interface MemoryStoreOptions extends Pick<FolderTrackerOptions, "watch" | "fullCheckIntervalMs" | "now"> {
  persistIndex?: boolean;
  persistMinNotes?: number;
}

/** Search results when no limit is given, and the most one call returns. */
export const [DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT] = [5, 50];
const READ_CONCURRENCY = 32;
/** Wait after a change before writing the index file, so a burst of saves writes it once. */
const PERSIST_DELAY_MS = 200;

type ReadHit = { fileName: string; content?: string; result?: MemorySearchResult };

/**
 * The memory folder; writes are atomic and durable. Search keeps an index, started from its file and updated from what
 * changed on disk (hand edits count); once searched it holds a watcher: `close()` when done (it never keeps the process alive).
 */
export class MemoryStore {
  private readonly tracker: FolderTracker;
  private index = new NoteIndex();
  private syncing: Promise<void> = Promise.resolve();
  private loaded = false;
  private persistEnabled: boolean;
  private readonly persistMinNotes: number;
  private persistTimer: NodeJS.Timeout | undefined;
  private persisting: Promise<void> = Promise.resolve();

  constructor(readonly dir: string, options: MemoryStoreOptions = {}) {
    const { persistIndex, persistMinNotes, ...trackerOptions } = options;
    this.tracker = new FolderTracker(dir, { ...trackerOptions, accept: isNoteFile });
    this.persistEnabled = persistIndex !== false;
    this.persistMinNotes = persistMinNotes ?? 200;
  }

  /** The store of a workspace: `<workspace>/memory`. */
  static forWorkspace(workspace: string, options?: MemoryStoreOptions): MemoryStore {
    return new MemoryStore(join(workspace, "memory"), options);
  }

  /** Every note, sorted by key. A missing folder is an empty memory. */
  async list(): Promise<MemoryEntry[]> {
    const names = (await readdir(this.dir).catch(() => [] as string[])).filter(isNoteFile);
    const entries: MemoryEntry[] = [];
    await forEachLimited(names, READ_CONCURRENCY, async (name) => {
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      const key = fileNameToKey(name);
      if (info?.isFile() && key !== undefined) entries.push({ key, updated: info.mtime, size: info.size });
    });
    return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /** The note of a key, or undefined when there is none. */
  async read(key: string): Promise<MemoryNote | undefined> {
    const file = await noteFileOf(this.dir, key);
    try {
      const [content, info] = await Promise.all([readRegularText(file.path), stat(file.path)]);
      return { key: file.key, content, updated: info.mtime, size: info.size };
    } catch {
      return undefined;
    }
  }

  /** Writes a note atomically and durably, replacing any note of the key under whatever spelling. Throws `MiniclawError`, leaving the previous note whole. */
  async save(key: string, content: string): Promise<MemoryEntry & { replaced: boolean }> {
    const file = await noteFileOf(this.dir, key);
    await writeFileAtomic(file.path, content).catch((error: Error) => {
      throw new MiniclawError(`cannot save memory "${file.key}": ${error.message}`, { cause: error });
    });
    this.tracker.touch(file.name);
    const info = await stat(file.path);
    return { key: file.key, updated: info.mtime, size: info.size, replaced: file.exists };
  }

  /** Removes a note; resolves to false when there was none. */
  async delete(key: string): Promise<boolean> {
    const file = await noteFileOf(this.dir, key);
    const removed = await unlink(file.path).then(() => true, () => false);
    if (removed) this.tracker.touch(file.name);
    return removed;
  }

  /** The notes most relevant to `query`, best first (at most `limit`, clamped to 1–50); a note holding a query word verbatim is always a candidate. */
  async search(query: string, limit = DEFAULT_SEARCH_LIMIT): Promise<MemorySearchResult[]> {
    await this.sync();
    const count = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
    const first = await this.readHits(this.index.search(query, count));
    if (first.every((hit) => hit.result)) return first.map((hit) => hit.result as MemorySearchResult);
    // A hit did not hold its words on disk (changed within a clock tick, or a forged index file): reindex it from what was read, and ask again.
    for (const { fileName, content, result } of first) {
      if (result || content === undefined) continue;
      const key = fileNameToKey(fileName);
      if (key !== undefined) this.index.upsert(fileName, key, content);
      this.tracker.touch(fileName);
      this.schedulePersist();
    }
    const second = await this.readHits(this.index.search(query, count));
    return second.flatMap((hit) => (hit.result ? [hit.result] : []));
  }

  /** Resolves once the index is up to date with the last search and written to its file (a pending write runs now). Never rejects. */
  async flush(): Promise<void> {
    await this.syncing;
    if (this.persistTimer) this.persistNow();
    await this.persisting;
  }

  /** Stops watching the folder and writes a pending index file now. The store stays usable; later searches stat every file. */
  close(): void {
    this.tracker.close();
    if (this.persistTimer) this.persistNow();
  }

  /** Reads each hit's note and checks it holds the matched words; a hit without `result` failed. */
  private readHits(hits: IndexHit[]): Promise<ReadHit[]> {
    return Promise.all(
      hits.map(async ({ fileName, score, terms }): Promise<ReadHit> => {
        const path = join(this.dir, fileName);
        const content = await readRegularText(path).catch(() => undefined);
        const stamp = this.tracker.stamp(fileName);
        const key = fileNameToKey(fileName);
        if (content === undefined || !stamp || key === undefined) return { fileName };
        if (!holdsTerms(key, content, terms)) return { fileName, content };
        return { fileName, content, result: { key, score, snippet: makeSnippet(content, new Set(terms)), updated: new Date(stamp.mtimeMs), path } };
      }),
    );
  }

  /** Brings the index up to date; concurrent callers share one pass at a time, in order. */
  private sync(): Promise<void> {
    const run = this.syncing.then(() => this.applyChanges());
    this.syncing = run.catch(() => undefined);
    return run;
  }

  private async applyChanges(): Promise<void> {
    // The first pass reads the index file (on the thread pool) while it stats the notes.
    const fromFile = this.loaded || !this.persistEnabled ? undefined : readIndexFile(this.dir, isNoteFile);
    this.loaded = true;
    const polled = await this.tracker.poll();
    const data = await fromFile;
    if (data) this.index = NoteIndex.fromData(data);
    const { changed, removed } = data ? changesSince(data, polled.changed) : polled;
    for (const name of removed) this.index.remove(name);
    await forEachLimited([...changed], READ_CONCURRENCY, async ([name, stamp]) => {
      const key = fileNameToKey(name);
      const readAt = Date.now();
      const content = await readRegularText(join(this.dir, name)).catch(() => undefined);
      if (key === undefined || content === undefined) {
        this.index.remove(name);
        this.tracker.forget(name);
        return;
      }
      // A note modified this shortly before it was read may change again with the same stamp (coarse clocks): its stamp proves nothing.
      this.index.upsert(name, key, content, stamp.mtimeMs < readAt - RACY_MS ? stamp : undefined);
    });
    if (changed.size + removed.length > 0) this.schedulePersist();
  }

  private schedulePersist(): void {
    if (!this.persistEnabled || this.persistTimer || this.index.size < this.persistMinNotes) return;
    this.persistTimer = setTimeout(() => this.persistNow(), PERSIST_DELAY_MS);
  }

  /** Writes the index file after the sync in progress; a folder that refuses writes turns persisting off. */
  private persistNow(): void {
    clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    this.persisting = this.persisting
      .then(() => this.syncing)
      .then(async () => {
        const folder = await stat(this.dir).catch(() => undefined);
        if (folder?.isDirectory() && this.persistEnabled) await writeIndexFile(this.dir, this.index.exportData());
      })
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === "EACCES" || error.code === "EPERM" || error.code === "EROFS") this.persistEnabled = false;
      });
  }
}
