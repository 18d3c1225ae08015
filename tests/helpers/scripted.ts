// Test helpers for the scripted model: a real SDK client pointed at it, and small request builders.
import Anthropic from "@anthropic-ai/sdk";
import type { ScriptedModel } from "../../src/testing/index.js";

/** The model id the tests send; the scripted model echoes it. */
export const TEST_MODEL = "claude-test-1";

/** A real Anthropic client talking to `model` over HTTP; no retries unless asked. */
export function clientFor(model: ScriptedModel, maxRetries = 0): Anthropic {
  return new Anthropic({ apiKey: "test", baseURL: model.baseURL, maxRetries });
}

/** A minimal valid request asking `text`. */
export function ask(text: string, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}): Anthropic.MessageCreateParamsNonStreaming {
  return { model: TEST_MODEL, max_tokens: 1024, messages: [{ role: "user", content: text }], ...extra };
}

/** A conversation where the assistant called `name` and the user answers with `result`. */
export function afterToolCall(name: string, input: Record<string, unknown>, result: string): Anthropic.MessageParam[] {
  return [
    { role: "user", content: `please use ${name}` },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name, input }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: result }] },
  ];
}
