import { describe, expect, it } from "vitest";
import { contextSize, contextWindowFor, estimateTokens, IMAGE_TOKENS, sessionContextSize } from "../../src/sessions/tokens.js";
import type { MessageParam } from "../../src/types.js";

describe("tokens", () => {
  it("estimates about four characters of JSON a token", () => {
    const message: MessageParam = { role: "user", content: "x".repeat(4_000) };
    const estimate = estimateTokens(message);
    expect(estimate).toBeGreaterThanOrEqual(1_000);
    expect(estimate).toBeLessThan(1_020);
    expect(estimateTokens("abcd")).toBe(Math.ceil(6 / 4));
  });

  it("counts an image as a fixed cost, not its base64 length", () => {
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "A".repeat(400_000) } };
    expect(estimateTokens(image)).toBe(IMAGE_TOKENS);
  });

  it("adds the exact usage of the last response to an estimate of what came after", () => {
    const lastUsage = { inputTokens: 100, outputTokens: 50, cacheReadTokens: 1_000, cacheWriteTokens: 200 };
    const since: MessageParam[] = [{ role: "user", content: "y".repeat(400) }];
    expect(contextSize({ lastUsage, messagesSince: since, systemAndTools: "z".repeat(99_999) })).toBe(1_350 + estimateTokens(since[0]));
  });

  it("estimates everything, system prompt and tools included, when there is no usage yet", () => {
    const messages: MessageParam[] = [{ role: "user", content: "hello" }];
    const system = { system: "s".repeat(800), tools: [] };
    expect(contextSize({ messagesSince: messages, systemAndTools: system })).toBe(estimateTokens(messages[0]) + estimateTokens(system));
  });

  it("sizes a loaded session from its lastUsage index", () => {
    const messages: MessageParam[] = [
      { role: "user", content: "a" },
      { role: "assistant", content: "b" },
      { role: "user", content: "c".repeat(40) },
    ];
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(sessionContextSize({ messages, lastUsage: { usage, index: 1 } })).toBe(15 + estimateTokens(messages[2]));
  });

  it("knows the window of each model family, 200k by default", () => {
    expect(contextWindowFor("claude-sonnet-4-5-20250929")).toBe(200_000);
    expect(contextWindowFor("claude-opus-4-1")).toBe(200_000);
    expect(contextWindowFor("claude-3-5-haiku-latest")).toBe(200_000);
    expect(contextWindowFor("claude-2.0")).toBe(100_000);
    expect(contextWindowFor("some-local-model")).toBe(200_000);
  });
});
