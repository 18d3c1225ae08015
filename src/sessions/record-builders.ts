// Builders of session records: ids, headers, and message records from API messages.
import { randomUUID } from "node:crypto";
import type { ApiMessage, ApiUsage, ContentBlockParam, MessageParam, Usage } from "../types.js";
import type { HeaderRecord, MessageRecord } from "./records.js";

/** The agent a key belongs to: `<id>` for `agent:<id>:...` keys, else `main`. */
export function agentIdFromKey(key: string): string {
  const match = /^agent:([^:]+):/.exec(key);
  return match?.[1] ?? "main";
}

/** A fresh record id (random UUID); ids are unique within a file and stable forever. */
export function newRecordId(): string {
  return randomUUID();
}

/** The header record opening a session file. */
export function headerRecordFor(key: string, agentId: string, ts: number, forkedFrom?: string): HeaderRecord {
  return { type: "session", version: 1, key, agentId, ts, ...(forkedFrom !== undefined && { forkedFrom }) };
}

/** The API's usage in our own spelling (absent cache figures count as 0). */
export function usageFromApi(usage: ApiUsage): Usage {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
    cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
  };
}

/** A user message record (the user's text, or the tool results of one assistant message). */
export function userMessageRecord(content: string | ContentBlockParam[], ts: number, extra?: { synthetic?: boolean }): MessageRecord {
  return {
    type: "message",
    id: newRecordId(),
    ts,
    message: { role: "user", content },
    ...(extra?.synthetic === true && { synthetic: true }),
  };
}

/**
 * The record of one model response: its content as the API returned it (so
 * thinking signatures survive), with usage, model and stop reason, so cost and
 * cache hits can be rebuilt from the file alone.
 */
export function assistantMessageRecord(response: ApiMessage, ts: number): MessageRecord {
  const message: MessageParam = { role: "assistant", content: response.content };
  return {
    type: "message",
    id: newRecordId(),
    ts,
    message,
    usage: usageFromApi(response.usage),
    model: response.model,
    ...(response.stop_reason !== null && { stopReason: response.stop_reason }),
  };
}
