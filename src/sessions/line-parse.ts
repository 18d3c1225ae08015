// Parsing one line of a session file: a fast structural check for messages, zod for the rare records.
import { SessionError } from "../errors.js";
import type * as z from "zod";
import { compactionRecord, headerRecord, modeRecord, outputRecord, type SessionRecord } from "./records.js";

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

/** The zod schema of each record type but messages (the rare ones). */
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
