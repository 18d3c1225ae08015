// The records of a session file (one JSON object per line): zod schemas checked on load, and their builders.
import { randomUUID } from "node:crypto";
import * as z from "zod";
import { PERMISSION_MODES, type MessageParam } from "../types.js";

const count = z.number();
const usageSchema = z.object({
  inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count,
  thinkingTokens: count.exactOptional(), webSearchRequests: count.exactOptional(), webFetchRequests: count.exactOptional(),
});
const permissionMode = z.enum(PERMISSION_MODES);
/** What every record but the header has. */
const stamped = { id: z.string(), ts: z.number() };

/** First line of a file: who it belongs to; `forkedFrom` the key a fork was copied from; `parent` the session and delegate call that started a subagent's. */
export const headerRecord = z.object({
  type: z.literal("session"),
  version: z.literal(1),
  key: z.string(),
  agentId: z.string(),
  ts: z.number(),
  forkedFrom: z.string().optional(),
  parent: z.object({ sessionKey: z.string(), toolUseId: z.string() }).optional(),
});

/**
 * One API message. Assistant messages carry the usage, model and stop reason of their response, and `discardedUsage`
 * of responses not stored (a tool call cut off by max_tokens and retried, an empty reply), so the file alone sums the
 * cost. `synthetic` marks messages the harness wrote itself (repairs, interrupts); `steerIds` the inbox steers a user
 * message carries (each is delivered once).
 */
export const messageRecord = z.object({
  type: z.literal("message"),
  ...stamped,
  message: z.object({ role: z.enum(["user", "assistant"]), content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]) }),
  usage: usageSchema.optional(),
  discardedUsage: usageSchema.optional(),
  model: z.string().optional(),
  stopReason: z.string().optional(),
  synthetic: z.boolean().optional(),
  steerIds: z.array(z.string()).optional(),
});

/**
 * A compaction: `summary` stands for every message before `firstKeptId`; loading starts from the last one, older lines
 * stay. It names the skills loaded and the permission mode recorded before the cut, and the summary request's usage.
 */
export const compactionRecord = z.object({
  type: z.literal("compaction"),
  ...stamped,
  summary: z.string(),
  firstKeptId: z.string(),
  replacedMessages: z.number(),
  tokensBefore: z.number(),
  skills: z.array(z.string()).optional(),
  usage: usageSchema.optional(),
  model: z.string().optional(),
  mode: permissionMode.optional(),
});

/** A structured answer of a turn (the `output` option), validated, after the assistant message (`messageId`) whose text held it. */
export const outputRecord = z.object({ type: z.literal("output"), ...stamped, messageId: z.string(), output: z.unknown() });

/** A change of permission mode, from the next tool call on; a reload takes the last one. */
export const modeRecord = z.object({ type: z.literal("mode"), ...stamped, mode: permissionMode, by: z.enum(["user", "exit_plan_mode"]) });

export type HeaderRecord = z.infer<typeof headerRecord>;
export type MessageRecord = Omit<z.infer<typeof messageRecord>, "message"> & { message: MessageParam };
export type CompactionRecord = z.infer<typeof compactionRecord>;
export type OutputRecord = z.infer<typeof outputRecord>;
export type ModeRecord = z.infer<typeof modeRecord>;
export type SessionRecord = HeaderRecord | MessageRecord | CompactionRecord | OutputRecord | ModeRecord;

/** A fresh record id (random UUID); ids are unique within a file and stable forever. */
export function newRecordId(): string {
  return randomUUID();
}

/** The agent a key belongs to: `<id>` for `agent:<id>:...` keys, else `main`. */
export function agentIdFromKey(key: string): string {
  return /^agent:([^:]+):/.exec(key)?.[1] ?? "main";
}

/** The header record opening a session file. */
export function headerRecordFor(key: string, agentId: string, ts: number, forkedFrom?: string): HeaderRecord {
  return { type: "session", version: 1, key, agentId, ts, ...(forkedFrom !== undefined && { forkedFrom }) };
}
