// The records of a session file, one JSON object a line: zod schemas, their builders, and the check of one line.
import { randomUUID } from "node:crypto";
import * as z from "zod";
import { SessionError } from "../errors.js";
import { PERMISSION_MODES, type MessageParam } from "../types.js";

const count = z.number();
const usageSchema = z.object({
  inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count,
  cacheWrite1hTokens: count.exactOptional(), thinkingTokens: count.exactOptional(), webSearchRequests: count.exactOptional(), webFetchRequests: count.exactOptional(),
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
 * One API message. An assistant message carries its response's usage, model and stop reason, and `discardedUsage` of responses not stored (a tool call
 * cut off, an empty reply): the file alone sums the cost. `synthetic`: the harness wrote it; `steerIds`: the inbox steers it carries, each delivered once.
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

/** `summary` stands for every message before `firstKeptId`, `skills` and `mode` for the state before the cut; loads start at the last one. */
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

/** A parsed line, or why it was rejected (one short phrase fit for a warning). */
export type ParsedLine = { ok: true; record: SessionRecord } | { ok: false; reason: string };

/** Parses and checks one line: messages (nearly every line) by hand, as zod costs more than the parse; unknown types rejected, not misread. */
export function parseRecordLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${(error as Error).message})` };
  }
  return checkRecordValue(value);
}

/** One record as its stored JSON text. Throws SessionError naming `where` for a record `load` would reject: nothing invalid is written. */
export function serializeRecord(record: SessionRecord, where: string): string {
  const checked = checkRecordValue(record);
  if (!checked.ok) throw new SessionError(`refusing to write an invalid ${String(record.type)} record to ${where}: ${checked.reason}`);
  return JSON.stringify(record);
}

const SCHEMAS = new Map<unknown, z.ZodType>([["session", headerRecord], ["compaction", compactionRecord], ["output", outputRecord], ["mode", modeRecord]]);

/** Checks a parsed value as a session record (as `load` does per line and `append` per record). */
function checkRecordValue(value: unknown): ParsedLine {
  if (!isObject(value)) return { ok: false, reason: "not a JSON object" };
  if (value["type"] === "message") {
    const problem = messageRecordProblem(value);
    return problem === undefined ? { ok: true, record: value as unknown as SessionRecord } : { ok: false, reason: problem };
  }
  const result = SCHEMAS.get(value["type"])?.safeParse(value);
  if (result === undefined) return { ok: false, reason: `unknown record type ${JSON.stringify(value["type"])}` };
  if (result.success) return { ok: true, record: result.data as SessionRecord };
  const issue = result.error.issues[0];
  return { ok: false, reason: issue ? `${issue.path.map(String).join(".") || "record"}: ${issue.message}` : "invalid record" };
}

/** Why a value is not a message record, or undefined when it is one. */
function messageRecordProblem(value: Record<string, unknown>): string | undefined {
  if (typeof value["id"] !== "string" || value["id"] === "") return "message record without an id";
  if (typeof value["ts"] !== "number") return "message record without a numeric ts";
  const message = value["message"];
  if (!isObject(message)) return "message record without a message";
  if (message["role"] !== "user" && message["role"] !== "assistant") return "message role is neither user nor assistant";
  const content = message["content"];
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content)) return "message content is neither a string nor an array";
  for (const block of content) {
    if (!isObject(block) || typeof block["type"] !== "string") return "content block without a type";
  }
  const counts = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"];
  for (const field of ["usage", "discardedUsage"]) {
    const usage = value[field];
    if (usage !== undefined && !(isObject(usage) && counts.every((k) => typeof usage[k] === "number"))) return `${field} is not {${counts.join(", ")}}`;
  }
  return undefined;
}

/** True for a plain (non-array) object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
