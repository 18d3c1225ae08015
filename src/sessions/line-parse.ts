// Parsing one line of a session file: a fast structural check for messages, zod for the rare records.
import { SessionError } from "../errors.js";
import { compactionRecord, headerRecord, modeRecord, outputRecord } from "./records.js";
import type { SessionRecord } from "./records.js";

/** A parsed line, or why it was rejected (one short phrase fit for a warning). */
export type ParsedLine = { ok: true; record: SessionRecord } | { ok: false; reason: string };

/**
 * Parses and checks one line. Message records (nearly every line) get a
 * hand-written structural check, because running zod over every line of a large
 * file costs more than the JSON parse itself; headers and compactions use zod.
 * Unknown record types are rejected, so a newer writer's records are reported, not misread.
 */
export function parseRecordLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${(error as Error).message})` };
  }
  return checkRecordValue(value);
}

/**
 * One record as its stored JSON text (a file line without its newline, a row's `record`). Throws
 * SessionError, naming `where`, for a record `load` would reject: nothing invalid is ever written.
 */
export function serializeRecord(record: SessionRecord, where: string): string {
  const checked = checkRecordValue(record);
  if (!checked.ok) throw new SessionError(`refusing to write an invalid ${String(record.type)} record to ${where}: ${checked.reason}`);
  return JSON.stringify(record);
}

/** Checks a parsed value as a session record (as `load` does per line and `append` per record). */
function checkRecordValue(value: unknown): ParsedLine {
  if (!isObject(value)) return { ok: false, reason: "not a JSON object" };
  switch (value["type"]) {
    case "message":
      return checkMessageRecord(value);
    case "session":
      return fromZod(headerRecord.safeParse(value));
    case "compaction":
      return fromZod(compactionRecord.safeParse(value));
    case "output":
      return fromZod(outputRecord.safeParse(value));
    case "mode":
      return fromZod(modeRecord.safeParse(value));
    default:
      return { ok: false, reason: `unknown record type ${JSON.stringify(value["type"])}` };
  }
}

/**
 * Checks a value as a message record (as `append` does before writing, and `load`
 * while reading). Returns the reason it is not one, or undefined when it is.
 */
export function messageRecordProblem(value: Record<string, unknown>): string | undefined {
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
  const usage = value["usage"];
  if (usage !== undefined && !isUsage(usage)) return "usage is not {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}";
  const discarded = value["discardedUsage"];
  if (discarded !== undefined && !isUsage(discarded)) return "discardedUsage is not {inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}";
  return undefined;
}

function checkMessageRecord(value: Record<string, unknown>): ParsedLine {
  const problem = messageRecordProblem(value);
  return problem === undefined ? { ok: true, record: value as unknown as SessionRecord } : { ok: false, reason: problem };
}

function isUsage(value: unknown): boolean {
  if (!isObject(value)) return false;
  return ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"].every((k) => typeof value[k] === "number");
}

function fromZod(result: { success: true; data: SessionRecord } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } }): ParsedLine {
  if (result.success) return { ok: true, record: result.data };
  const issue = result.error.issues[0];
  return { ok: false, reason: issue ? `${issue.path.map(String).join(".") || "record"}: ${issue.message}` : "invalid record" };
}

/** True for a plain (non-array) object. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
