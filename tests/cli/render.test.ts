import { describe, expect, it } from "vitest";
import { createRenderer, type RenderOptions } from "../../src/cli/render.js";
import type { AgentEvent } from "../../src/types.js";

/** A renderer writing to a string, on a clock that moves only when told. */
function renderTo(opts: Partial<RenderOptions> = {}) {
  let written = "";
  let now = 1_000;
  const render = createRenderer({ write: (text) => void (written += text) }, { color: false, streamText: true, now: () => now, ...opts });
  return {
    feed: (...events: AgentEvent[]) => events.forEach(render),
    advance: (ms: number) => void (now += ms),
    written: () => written,
    atLineStart: () => render.atLineStart(),
  };
}

const USAGE: AgentEvent = { type: "usage", usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0 };

describe("thinking on the terminal", () => {
  it("shows one thinking line, not the text, and rewrites it as how long the model thought when the reply starts", () => {
    const r = renderTo();
    r.feed({ type: "thinking_delta", text: "The user wants " });
    expect(r.written()).toBe("thinking…");
    expect(r.atLineStart()).toBe(false);
    r.advance(1_500);
    r.feed({ type: "thinking_delta", text: "a greeting." });
    r.feed({ type: "text_delta", text: "Hello!" });
    expect(r.written()).toBe("thinking…\r\x1b[Kthought for 1.5 s\nHello!");
    expect(r.written()).not.toMatch(/greeting/);
  });

  it("collapses before a tool line, and thinks again on its own line in the next request", () => {
    const r = renderTo();
    r.feed({ type: "request_start", iteration: 1, model: "m" }, { type: "thinking_delta", text: "look first" });
    r.advance(12_400);
    r.feed(USAGE, { type: "tool_call", id: "t1", name: "read_file", input: { path: "notes.md" } });
    r.feed({ type: "tool_result", id: "t1", name: "read_file", isError: false, content: "tea" });
    r.feed({ type: "request_start", iteration: 2, model: "m" }, { type: "thinking_delta", text: "now answer" });
    r.advance(300);
    r.feed({ type: "text_delta", text: "Tea." }, { type: "turn_end", stopReason: "end_turn", usage: USAGE.usage, costUsd: 0, iterations: 2 });
    expect(r.written().split("\n")).toEqual([
      "thinking…\r\x1b[Kthought for 12 s",
      "→ read_file: notes.md",
      "  ✓ tea",
      "thinking…\r\x1b[Kthought for 0.3 s",
      "Tea.",
    ]);
  });

  it("ends the reply's line before thinking that follows text", () => {
    const r = renderTo();
    r.feed({ type: "text_delta", text: "Let me check." }, { type: "thinking_delta", text: "hmm" }, { type: "turn_end", stopReason: "end_turn", usage: USAGE.usage, costUsd: 0, iterations: 1 });
    expect(r.written()).toBe("Let me check.\nthinking…\r\x1b[Kthought for 0.0 s\n");
    expect(r.atLineStart()).toBe(true);
  });

  it("with /thinking show, streams the thinking text, then says how long it took", () => {
    const r = renderTo({ showThinking: true });
    r.feed({ type: "thinking_delta", text: "The user wants " }, { type: "thinking_delta", text: "a greeting." });
    r.advance(2_000);
    r.feed({ type: "text_delta", text: "Hello!" });
    expect(r.written()).toBe("The user wants a greeting.\n(thought for 2.0 s)\nHello!");
  });

  it("escapes what the thinking holds, as all model text", () => {
    const r = renderTo({ showThinking: true });
    r.feed({ type: "thinking_delta", text: "clear \x1b[2J and \u202eflip\n" }, { type: "text_delta", text: "ok" });
    expect(r.written()).toBe("clear \\x1b[2J and \\u202eflip\n(thought for 0.0 s)\nok");
  });

  it("prints nothing of thinking where the reply does not stream (run, line mode)", () => {
    const r = renderTo({ streamText: false });
    r.feed({ type: "thinking_delta", text: "secret plan" }, { type: "text_delta", text: "Hi" });
    r.feed({ type: "tool_call", id: "t", name: "read_file", input: { path: "a" } });
    expect(r.written()).toBe("→ read_file: a\n");
  });
});

describe("web tool lines", () => {
  it("shows a search as its quoted query and its result's summary line", () => {
    const r = renderTo({ streamText: false });
    r.feed(
      { type: "tool_call", id: "s1", name: "web_search", input: { query: "node 20 release date" }, server: true },
      { type: "tool_result", id: "s1", name: "web_search", isError: false, content: "8 results\nhttps://nodejs.org/en/blog — Node 20\nhttps://example.com — more", server: true },
      { type: "tool_call", id: "f1", name: "web_fetch", input: { url: "https://nodejs.org/en/blog" }, server: true },
      { type: "tool_result", id: "f1", name: "web_fetch", isError: false, content: "fetched Node.js blog\nlots of text\nand more", server: true },
      { type: "tool_call", id: "f2", name: "web_fetch", input: { url: "https://down.example" }, server: true },
      { type: "tool_result", id: "f2", name: "web_fetch", isError: true, content: "url_not_accessible", server: true },
    );
    expect(r.written().split("\n")).toEqual([
      '→ web_search: "node 20 release date"',
      "  ✓ 8 results",
      "→ web_fetch: https://nodejs.org/en/blog",
      "  ✓ fetched Node.js blog",
      "→ web_fetch: https://down.example",
      "  ✗ url_not_accessible",
      "",
    ]);
  });

  it("keeps a query on one line, escaped", () => {
    const r = renderTo({ streamText: false });
    r.feed({ type: "tool_call", id: "s1", name: "web_search", input: { query: "a\nb \x1b[31m" }, server: true });
    expect(r.written()).toBe('→ web_search: "a b \\x1b[31m"\n');
  });
});
