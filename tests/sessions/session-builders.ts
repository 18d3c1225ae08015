// Builders of session records and temp folders for the session tests.
import { rm } from "node:fs/promises";
import type { MessageRecord, SessionRecord } from "../../src/sessions/records.js";
import type { ContentBlockParam, Usage } from "../../src/types.js";
import { tempDir as newTempDir } from "../helpers/temp-dir.js";

let counter = 0;

/** A fresh temp folder and its removal. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await newTempDir("miniclaw-sessions-");
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A usage with only input tokens set. */
export function usageOf(inputTokens: number, outputTokens = 10): Usage {
  return { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

/** A message record with a readable id. */
export function record(role: "user" | "assistant", content: string | ContentBlockParam[], extra: Partial<MessageRecord> = {}): MessageRecord {
  counter += 1;
  return { type: "message", id: `m${counter}`, ts: 1_000 + counter, message: { role, content }, ...extra };
}

export const user = (text: string, extra: Partial<MessageRecord> = {}): MessageRecord => record("user", text, extra);

export const assistantText = (text: string, usage?: Usage): MessageRecord =>
  record("assistant", [{ type: "text", text }], usage ? { usage } : {});

/** An assistant message asking for one tool call per id. */
export const assistantToolUse = (ids: string[], usage?: Usage): MessageRecord =>
  record(
    "assistant",
    [{ type: "text", text: "Let me check." }, ...ids.map((id): ContentBlockParam => ({ type: "tool_use", id, name: "read_file", input: { path: `${id}.txt` } }))],
    usage ? { usage } : {},
  );

/** A user message answering the given tool calls. */
export const toolResults = (ids: string[], text = "contents"): MessageRecord =>
  record("user", ids.map((id): ContentBlockParam => ({ type: "tool_result", tool_use_id: id, content: `${text} of ${id}` })));

/** A whole turn: question, tool call, result, answer. */
export function turn(n: number, resultText = "contents"): MessageRecord[] {
  const id = `toolu_${n}_${counter}`;
  return [user(`question ${n}`), assistantToolUse([id], usageOf(100 * n)), toolResults([id], resultText), assistantText(`answer ${n}`, usageOf(100 * n + 50))];
}

/** Records as the text of a session file. */
export function lines(records: SessionRecord[]): string {
  return records.map((r) => JSON.stringify(r) + "\n").join("");
}

/** A header record for `key`. */
export function header(key: string, agentId = "main"): SessionRecord {
  return { type: "session", version: 1, key, agentId, ts: 1 };
}
