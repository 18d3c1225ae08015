// MemoryStore: long-term notes as `<dir>/<key>.md`, shared by all agents, with ranked full-text search.
import { readFile, readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { MiniclawError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { forEachLimited, FolderTracker, type FolderTrackerOptions } from "./folder-tracker.js";
import { fileNameToKey, hasOtherSpellings, keyToFileName, normalizeKey, NOTE_EXTENSION } from "./keys.js";
import { NoteIndex } from "./search-index.js";
import { makeSnippet } from "./terms.js";

/** A note's key and when it was last written. */
export interface MemoryEntry {
  key: string;
  /** Last write, from the file's modification time (hand edits count). */
  updated: Date;
  size: number;
}

/** A whole note. */
export interface MemoryNote extends MemoryEntry {
  content: string;
}

/** One search result: the note's key, its relevance, and a short window around the match. */
export interface MemorySearchResult {
  key: string;
  /** BM25+ score; only the order is meaningful. */
  score: number;
  snippet: string;
  updated: Date;
  /** Absolute path of the note file, for reading it whole. */
  path: string;
}

/** Options of a `MemoryStore`. */
export interface MemoryStoreOptions extends Pick<FolderTrackerOptions, "watch" | "fullCheckIntervalMs" | "now"> {}

/** Number of search results when no limit is given. */
export const DEFAULT_SEARCH_LIMIT = 5;
/** Largest number of search results one call returns. */
export const MAX_SEARCH_LIMIT = 50;
const READ_CONCURRENCY = 32;

/** Cheap test run on every name of the folder; agrees with `fileNameToKey` being defined. */
const isNoteFile = (fileName: string): boolean =>
  fileName.endsWith(NOTE_EXTENSION) && !fileName.startsWith(".") && fileName.length > NOTE_EXTENSION.length;

/**
 * The memory folder. Writes are atomic and durable (`writeFileAtomic`). Search keeps an
 * index in memory, built on the first search and brought up to date on each later one from
 * what changed on disk, so notes edited, added or removed by hand are found. Holds a folder
 * watcher once searched: call `close()` when done (it never keeps the process alive).
 */
export class MemoryStore {
  private readonly tracker: FolderTracker;
  private readonly index = new NoteIndex();
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    readonly dir: string,
    options: MemoryStoreOptions = {},
  ) {
    this.tracker = new FolderTracker(dir, { ...options, accept: isNoteFile });
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
    const file = await this.fileOf(key);
    try {
      const [content, info] = await Promise.all([readFile(file.path, "utf8"), stat(file.path)]);
      return { key: file.key, content, updated: info.mtime, size: info.size };
    } catch {
      return undefined;
    }
  }

  /**
   * Writes a note atomically and durably, replacing any note of the same key (under
   * whatever spelling it has on disk). Throws `MiniclawError` for a bad key or a
   * failed write, which leaves the previous note whole.
   */
  async save(key: string, content: string): Promise<MemoryEntry & { replaced: boolean }> {
    const file = await this.fileOf(key);
    try {
      await writeFileAtomic(file.path, content);
    } catch (error) {
      throw new MiniclawError(`cannot save memory "${file.key}": ${(error as Error).message}`, { cause: error });
    }
    this.tracker.touch(file.name);
    const info = await stat(file.path);
    return { key: file.key, updated: info.mtime, size: info.size, replaced: file.exists };
  }

  /** Removes a note; resolves to false when there was none. */
  async delete(key: string): Promise<boolean> {
    const file = await this.fileOf(key);
    try {
      await unlink(file.path);
    } catch {
      return false;
    }
    this.tracker.touch(file.name);
    return true;
  }

  /**
   * The notes most relevant to `query`, best first (at most `limit`, clamped to 1–50).
   * An empty array means nothing matched. Never drops a note for a low score: a note
   * containing a query word verbatim is always a candidate, and represented when any is.
   */
  async search(query: string, limit = DEFAULT_SEARCH_LIMIT): Promise<MemorySearchResult[]> {
    await this.sync();
    const count = Math.min(MAX_SEARCH_LIMIT, Math.max(1, Math.floor(limit)));
    const results: MemorySearchResult[] = [];
    for (const hit of this.index.search(query, count)) {
      const path = join(this.dir, hit.fileName);
      const content = await readFile(path, "utf8").catch(() => undefined);
      const stamp = this.tracker.stamp(hit.fileName);
      if (content === undefined || !stamp) continue;
      const snippet = makeSnippet(content, new Set(hit.terms));
      results.push({ key: hit.key, score: hit.score, snippet, updated: new Date(stamp.mtimeMs), path });
    }
    return results;
  }

  /** Stops watching the folder. The store stays usable; later searches stat every file. */
  close(): void {
    this.tracker.close();
  }

  /** Brings the index up to date; concurrent callers share one pass at a time, in order. */
  private sync(): Promise<void> {
    const run = this.syncing.then(() => this.applyChanges());
    this.syncing = run.catch(() => undefined);
    return run;
  }

  private async applyChanges(): Promise<void> {
    const { changed, removed } = await this.tracker.poll();
    for (const name of removed) this.index.remove(name);
    await forEachLimited([...changed.keys()], READ_CONCURRENCY, async (name) => {
      const key = fileNameToKey(name);
      const content = await readFile(join(this.dir, name), "utf8").catch(() => undefined);
      if (key === undefined || content === undefined) {
        this.index.remove(name);
        this.tracker.forget(name);
        return;
      }
      this.index.upsert(name, key, content);
    });
  }

  /**
   * Where a key lives: its canonical file name, unless only another spelling of that key
   * exists, which is then used in place: a file dropped in by hand (`100%.md`) or written
   * under the earlier encoding (`Project Alpha.md`). Such notes are not renamed: a person
   * may have named the file, and the loose reading of names finds them as they are.
   */
  private async fileOf(key: string): Promise<{ key: string; name: string; path: string; exists: boolean }> {
    const name = keyToFileName(key);
    const normalized = normalizeKey(key);
    const exists = await stat(join(this.dir, name)).then(
      (info) => info.isFile(),
      () => false,
    );
    if (!exists && hasOtherSpellings(name)) {
      const names = await readdir(this.dir).catch(() => [] as string[]);
      const alias = names.find((other) => other !== name && fileNameToKey(other) === normalized);
      if (alias) return { key: normalized, name: alias, path: join(this.dir, alias), exists: true };
    }
    return { key: normalized, name, path: join(this.dir, name), exists };
  }
}
