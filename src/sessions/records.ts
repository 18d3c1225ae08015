// The records of a session file (one JSON object per line): zod schemas checked on load, and their builders.
import { randomUUID } from "node:crypto";
import * as z from "zod";
import type { MessageParam } from "../types.js";

const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  thinkingTokens: z.number().exactOptional(),
  webSearchRequests: z.number().exactOptional(),
  webFetchRequests: z.number().exactOptional(),
});

const permissionMode = z.enum(["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]);

const messageSchema = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
});

/** First line of a file: who it belongs to. */
export const headerRecord = z.object({
  type: z.literal("session"),
  version: z.literal(1),
  key: z.string(),
  agentId: z.string(),
  ts: z.number(),
  /** Set on a fork: the key it was copied from. */
  forkedFrom: z.string().optional(),
  /** Set on a subagent's session: the session and the delegate call that started it. */
  parent: z.object({ sessionKey: z.string(), toolUseId: z.string() }).optional(),
});

/** One API message. Assistant messages carry the usage, model and stop reason of their response. */
export const messageRecord = z.object({
  type: z.literal("message"),
  id: z.string(),
  ts: z.number(),
  message: messageSchema,
  usage: usageSchema.optional(),
  /** Usage of responses of this turn not stored (a tool call cut off by max_tokens and retried, an empty reply), so the file alone sums the cost. */
  discardedUsage: usageSchema.optional(),
  model: z.string().optional(),
  stopReason: z.string().optional(),
  /** Set on messages the harness wrote itself (repairs, interrupts), never by the model. */
  synthetic: z.boolean().optional(),
  /** Ids of the durable-inbox steering messages this user message carries: each is delivered once. */
  steerIds: z.array(z.string()).optional(),
});

/** A compaction: `summary` stands for every message before `firstKeptId`. Loading starts from the last one; older lines stay. */
export const compactionRecord = z.object({
  type: z.literal("compaction"),
  id: z.string(),
  ts: z.number(),
  summary: z.string(),
  firstKeptId: z.string(),
  replacedMessages: z.number(),
  tokensBefore: z.number(),
  /** Skills loaded before the cut, so they are named again after it. */
  skills: z.array(z.string()).optional(),
  /** Usage and model of the summary request, so the file alone sums a session's cost. */
  usage: usageSchema.optional(),
  model: z.string().optional(),
  /** The permission mode recorded before the cut, so a load from here on still knows it. */
  mode: permissionMode.optional(),
});

/** A structured answer of a turn (the `output` option), validated, after the assistant message it was read from. */
export const outputRecord = z.object({
  type: z.literal("output"),
  id: z.string(),
  ts: z.number(),
  /** The assistant message whose text held it. */
  messageId: z.string(),
  output: z.unknown(),
});

/** A change of permission mode, from the next tool call on; a reload takes the last one. */
export const modeRecord = z.object({
  type: z.literal("mode"),
  id: z.string(),
  ts: z.number(),
  mode: permissionMode,
  by: z.enum(["user", "exit_plan_mode"]),
});

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
  const match = /^agent:([^:]+):/.exec(key);
  return match?.[1] ?? "main";
}

/** The header record opening a session file. */
export function headerRecordFor(key: string, agentId: string, ts: number, forkedFrom?: string): HeaderRecord {
  return { type: "session", version: 1, key, agentId, ts, ...(forkedFrom !== undefined && { forkedFrom }) };
}
