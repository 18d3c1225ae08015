// A session as the loop sees it: the API view of its history, and a handle that holds it locked for one turn.
import { once } from "node:events";
import type { Clock } from "../deps.js";
import { messageOf } from "../errors.js";
import type { ContentBlockParam, MessageParam, PermissionModeName, Usage } from "../types.js";
import { agentIdFromKey, headerRecordFor, newRecordId, type CompactionRecord, type MessageRecord, type ModeRecord, type OutputRecord, type SessionRecord } from "./records.js";
import { isPlainUserMessage, repairMessages, type HistoryRepair } from "./repair.js";
import type { LoadRegion } from "./session-file.js";
import type { SessionStorage } from "./store.js";

/** A session as the loop needs it: the API view from the last compaction on. */
export interface LoadedSession {
  key: string;
  /** The session file (absolute when the store's folder is), and whether it exists (else the first `append` writes a header). */
  file: string;
  exists: boolean;
  agentId?: string;
  /** Valid for the API: a user message (or the summary) first, roles alternating, each tool_use answered next; the end per LoadMode. */
  messages: MessageParam[];
  /** `messages[i + messageOffset]` is built from `records[i]`; repairs are records with `synthetic: true`. */
  records: MessageRecord[];
  /** 1 when the summary is a message of its own, 0 when it leads the content of the first kept user message. */
  messageOffset: 0 | 1;
  compaction?: CompactionRecord;
  /** The usage of the last response written after the last compaction, and its index in `messages` (for `contextSize`). */
  lastUsage?: { usage: Usage; index: number };
  /** The structured answers (`output` option) and the last permission mode recorded in the loaded part. */
  outputs?: OutputRecord[];
  mode?: PermissionModeName;
  /** Problems met while reading and repairs made (file and line named); the caller shows them. */
  warnings: string[];
}

/** The opening and closing of the text block that carries a compaction summary. */
export const SUMMARY_PREFIX = "The conversation before this point was compacted. Summary of it:\n<summary>\n";
export const SUMMARY_SUFFIX = "\n</summary>";

/**
 * How a load treats the session's end, where a crash leaves its marks: `turn-start` answers a trailing tool_use with `is_error` results and a trailing
 * user message with "(no reply: ...)", appended; `in-turn` keeps the end as written; `read` answers a tool_use in memory only, never in another's turn.
 */
export type LoadMode = "turn-start" | "in-turn" | "read";

/** The view of a region loaded in `mode`, the repairs a `turn-start` load must append first, and the repair to extend. Pure. */
export function viewForLoad(
  region: Pick<LoadRegion, "header" | "compaction" | "records" | "afterCompaction" | "warnings" | "outputs" | "mode">,
  base: { key: string; file: string; ts: number },
  mode: LoadMode,
): { session: LoadedSession; repairs: MessageRecord[]; repair: HistoryRepair } {
  const { compaction, header, outputs } = region;
  const repaired = repairMessages(region.records, { afterSummary: compaction !== undefined, tail: mode, ts: base.ts, newId: newRecordId });
  const records = repaired.records;
  let messages = records.map((record) => record.message);
  let messageOffset: 0 | 1 = 0;
  if (compaction) {
    const summary: ContentBlockParam = { type: "text", text: SUMMARY_PREFIX + compaction.summary + SUMMARY_SUFFIX };
    const first = messages[0];
    if (first !== undefined && isPlainUserMessage(first)) {
      const blocks = typeof first.content === "string" ? [{ type: "text" as const, text: first.content }] : first.content;
      messages = [{ role: "user", content: [summary, ...blocks] }, ...messages.slice(1)];
    } else {
      messages = [{ role: "user", content: [summary] }, ...messages];
      messageOffset = 1;
    }
  }
  const last = records.findLastIndex((record) => record.usage !== undefined && record.message.role === "assistant" && region.afterCompaction.has(record.id));
  const lastUsage = last < 0 ? undefined : { usage: records[last]!.usage!, index: last + messageOffset };
  const warnings = [...region.warnings, ...repaired.notes.map((note) => `${base.file}: ${note}`)];
  const found = { ...(compaction && { compaction }), ...(lastUsage && { lastUsage }), ...(outputs && { outputs }), ...(region.mode && { mode: region.mode }) };
  const agentId = header?.agentId ?? agentIdFromKey(base.key);
  const session: LoadedSession = { key: base.key, file: base.file, exists: true, agentId, messages, records, messageOffset, ...found, warnings };
  return { session, repairs: mode === "turn-start" ? repaired.tail : [], repair: repaired.repair };
}

/** What `openSession` resolves to: `aborted` before the lock was won (nothing read or written), `unreadable` when the file could not be read (the lock released). */
export type OpenResult = { status: "open"; handle: SessionHandle } | { status: "aborted" } | { status: "unreadable"; error: string };
/** `parent`: a subagent's session names, in its header, the session and the delegate call that started it. */
type OpenOptions = { agentId: string; clock: Clock; signal?: AbortSignal; parent?: { sessionKey: string; toolUseId: string } };

/** Locks the session (unless `signal` aborts first) and loads it, closing a crashed turn's end. Throws SessionError when it stays busy. */
export async function openSession(store: SessionStorage, key: string, options: OpenOptions): Promise<OpenResult> {
  const release = await lockUnlessAborted(store, key, options.signal);
  if (!release) return { status: "aborted" };
  let session: LoadedSession;
  try {
    session = await store.load(key, { mode: "turn-start" });
  } catch (error) {
    await release().catch(() => undefined);
    return { status: "unreadable", error: messageOf(error) };
  }
  return { status: "open", handle: new SessionHandle(store, key, options.agentId, options.clock, session, release, options.parent) };
}

/** A session held for one turn; its view is kept by a load's own repair, so requests match a reload of the file byte for byte. */
export class SessionHandle {
  private repair: HistoryRepair;
  private exists: boolean;

  constructor(
    private readonly store: SessionStorage,
    readonly key: string,
    private readonly agentId: string,
    private readonly clock: Clock,
    private view: LoadedSession,
    private readonly unlock: () => Promise<void>,
    private readonly parent?: OpenOptions["parent"],
  ) {
    this.exists = view.exists;
    this.repair = this.rebuild(view.records, view.compaction).repair;
  }

  /** The view: messages to send, their records, the last compaction and usage. Replaced by `compact`. */
  get session(): LoadedSession {
    return this.view;
  }

  /** Every tool_use id of the history, so a new response's ids can be made unique. */
  get toolUseIds(): ReadonlySet<string> {
    return this.repair.toolUseIds;
  }

  /** Writes one message to the file (the header first when new), then adds it to the view. Throws SessionError; the view is then unchanged. */
  async append(message: MessageParam, extra: Partial<Omit<MessageRecord, "type" | "message">> = {}): Promise<void> {
    const ts = this.clock.now();
    const record: MessageRecord = { type: "message", id: newRecordId(), ts, ...extra, message };
    await this.write(ts, record);
    for (const added of this.repair.add(record)) {
      this.view.records.push(added);
      this.view.messages.push(added.message);
      if (added.usage && added.message.role === "assistant") this.view.lastUsage = { usage: added.usage, index: this.view.messages.length - 1 };
    }
  }

  /** Appends the structured answer read from the last assistant message; the view is unchanged. Throws SessionError. */
  async appendOutput(output: unknown): Promise<void> {
    const messageId = this.view.records.at(-1)?.id ?? "";
    const record: OutputRecord = { type: "output", id: newRecordId(), ts: this.clock.now(), messageId, output };
    await this.store.append(this.key, [record]);
  }

  /** Records a change of permission mode (the view's `mode` follows); the header first when the session is new. Throws SessionError. */
  async appendMode(mode: ModeRecord["mode"], by: ModeRecord["by"]): Promise<void> {
    const ts = this.clock.now();
    await this.write(ts, { type: "mode", id: newRecordId(), ts, mode, by });
    this.view.mode = mode;
  }

  /** Appends a compaction record and rebuilds the view from its first kept message, in memory. Throws SessionError. */
  async compact(record: CompactionRecord): Promise<void> {
    await this.store.append(this.key, [record]);
    const first = this.view.records.findIndex((r) => r.id === record.firstKeptId);
    const built = this.rebuild(this.view.records.slice(Math.max(0, first)), record);
    this.view = { ...built.session, warnings: [], ...(this.view.mode && { mode: this.view.mode }) };
    this.repair = built.repair;
  }

  /** Releases the lock; never throws. */
  async release(): Promise<void> {
    await this.unlock().catch(() => undefined);
  }

  /** Appends one record, the header first when the session is new. */
  private async write(ts: number, record: SessionRecord): Promise<void> {
    const header = (): SessionRecord => ({ ...headerRecordFor(this.key, this.agentId, ts), ...(this.parent && { parent: this.parent }) });
    await this.store.append(this.key, this.exists ? [record] : [header(), record]);
    this.exists = true;
  }

  /** The view of `records` after `compaction`, as a load of the file would build it. */
  private rebuild(records: MessageRecord[], compaction: CompactionRecord | undefined): { session: LoadedSession; repair: HistoryRepair } {
    const region = { records, afterCompaction: new Set<string>(), warnings: [], ...(compaction && { compaction }) };
    const built = viewForLoad(region, { key: this.key, file: this.view.file, ts: this.clock.now() }, "in-turn");
    return { session: { ...built.session, exists: this.view.exists, ...(this.view.agentId && { agentId: this.view.agentId }) }, repair: built.repair };
  }
}

/** Waits for the lock unless `signal` aborts first; a lock won after the abort is released at once. */
async function lockUnlessAborted(store: SessionStorage, key: string, signal: AbortSignal | undefined): Promise<(() => Promise<void>) | undefined> {
  if (signal?.aborted) return undefined;
  const locking = store.lock(key);
  if (!signal) return locking;
  const settled = new AbortController();
  const aborted = once(signal, "abort", { signal: settled.signal }).then(() => undefined, () => undefined);
  const release = await Promise.race([locking, aborted]).finally(() => settled.abort());
  if (!release) locking.then((late) => late(), () => undefined);
  return release;
}
