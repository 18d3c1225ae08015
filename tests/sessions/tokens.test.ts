import { describe, expect, it } from "vitest";
import { contextSize, contextWindowFor, estimateTokens, IMAGE_TOKENS, sessionContextSize } from "../../src/sessions/compaction.js";
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

  it("counts a PDF by its pages (3,000 tokens each at most), not its base64 length: a 2 MB PDF of 4 pages is not 700,000 tokens", () => {
    const pdf = (body: string): unknown => ({ type: "document", source: { type: "base64", media_type: "application/pdf", data: Buffer.from(body, "latin1").toString("base64") } });
    const pages = "%PDF-1.4\n1 0 obj << /Type /Pages /Count 4 >> endobj\n" + "2 0 obj << /Type /Page /Parent 1 0 R >> endobj\n".repeat(4);
    expect(estimateTokens(pdf(pages + " ".repeat(50_000)))).toBe(4 * 3_000);
    // Pages packed in compressed object streams are not seen: one page per 100 KB then, 2 MB making 20.
    expect(estimateTokens(pdf("%PDF-1.7\n" + "x".repeat(2_000_000)))).toBe(Math.ceil(2_000_009 / 100_000) * 3_000);
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
