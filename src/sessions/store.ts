// The session store: one append-only JSONL file per session key.
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { MessageParam } from "../types.js";
import { sessionRecord, type CompactionRecord, type MessageRecord, type SessionRecord } from "./records.js";

/** A session as the loop needs it: the API view from the last compaction on. */
export interface LoadedSession {
  key: string;
  /** False when no file exists yet; the first append should then start with a header record. */
  exists: boolean;
  agentId?: string;
  /** Messages to send, summary first when compacted; valid for the API after repair. */
  messages: MessageParam[];
  /** The message records behind `messages` (the summary, when present, has none). */
  records: MessageRecord[];
  compaction?: CompactionRecord;
  /** Problems met while reading (file and line named); the caller shows them. */
  warnings: string[];
}

/** What the loop needs of a session store; `SessionStore` is the file-backed one. */
export interface SessionStorage {
  load(key: string): Promise<LoadedSession>;
  /** Appends records, each as one whole line. */
  append(key: string, records: SessionRecord[]): Promise<void>;
  /** Holds the session for one turn; resolves to a release function. Throws SessionError when busy too long. */
  lock(key: string): Promise<() => Promise<void>>;
}

export class SessionStore implements SessionStorage {
  constructor(readonly dir: string) {}

  fileFor(key: string): string {
    return join(this.dir, `${encodeURIComponent(key)}.jsonl`);
  }

  async load(key: string): Promise<LoadedSession> {
    let text: string;
    try {
      text = await readFile(this.fileFor(key), "utf8");
    } catch {
      return { key, exists: false, messages: [], records: [], warnings: [] };
    }
    const records: MessageRecord[] = [];
    let agentId: string | undefined;
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      const parsed = sessionRecord.safeParse(JSON.parse(line));
      if (!parsed.success) continue;
      if (parsed.data.type === "session") agentId = parsed.data.agentId;
      if (parsed.data.type === "message") records.push(parsed.data as MessageRecord);
    }
    return {
      key,
      exists: true,
      ...(agentId !== undefined && { agentId }),
      messages: records.map((r) => r.message),
      records,
      warnings: [],
    };
  }

  async append(key: string, records: SessionRecord[]): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await appendFile(this.fileFor(key), records.map((r) => JSON.stringify(r) + "\n").join(""));
  }

  async lock(): Promise<() => Promise<void>> {
    return async () => {};
  }
}

