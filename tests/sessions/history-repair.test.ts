import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildRequest } from "../../src/loop/request.js";
import type { MessageRecord } from "../../src/sessions/records.js";
import { cleanResponse, repairMessages } from "../../src/sessions/repair.js";
import { defineTool } from "../../src/tools/define.js";
import { validateRequest } from "../../src/testing/index.js";
import type { ContentBlockParam, MessageParam } from "../../src/types.js";

const tool = defineTool({ name: "t", description: "d", input: z.object({ a: z.string() }), run: () => "" });
const user = (text: string): MessageParam => ({ role: "user", content: text });
const use = (...ids: string[]): MessageParam => ({ role: "assistant", content: ids.map((id) => ({ type: "tool_use" as const, id, name: "t", input: { a: "x" } })) });
const records = (messages: MessageParam[]): MessageRecord[] => messages.map((message, i) => ({ type: "message", id: `r${i}`, ts: i, message }));
let fresh = 0;
const repair = (messages: MessageParam[]) => repairMessages(records(messages), { afterSummary: false, tail: "turn-start", ts: 99, newId: () => `new${fresh++}` });
/** The request the loop would send after the repaired history and one more user message. */
const nextRequest = (messages: MessageParam[]) =>
  buildRequest({ model: "m", maxTokens: 10, system: "sys", tools: [tool], messages: [...repair(messages).records.map((r) => r.message), user("next")] });

describe("one repair of the history", () => {
  it("answers a trailing tool_use with an is_error result, and notes it", () => {
    const { records: out, notes } = repair([user("hi"), use("a")]);
    expect(out.map((r) => r.message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(out[2]!.message.content).toEqual([expect.objectContaining({ type: "tool_result", tool_use_id: "a", is_error: true })]);
    expect(notes.length).toBeGreaterThan(0);
  });

  it("fills a missing result in the middle and turns stray and duplicate results into text", () => {
    const broken: MessageParam[] = [
      user("hi"),
      use("a", "b"),
      { role: "user", content: [{ type: "tool_result", tool_use_id: "b", content: "1" }, { type: "tool_result", tool_use_id: "b", content: "2" }, { type: "tool_result", tool_use_id: "zzz", content: "3" }] },
      { role: "assistant", content: "done" },
    ];
    const params = nextRequest(broken);
    expect(validateRequest(params as unknown as Record<string, unknown>)).toBeNull();
    const answered = params.messages[2]!.content as ContentBlockParam[];
    expect(answered.map((b) => (b.type === "tool_result" ? [b.tool_use_id, b.is_error ?? false] : [b.type]))).toEqual([["a", true], ["b", false], ["text"], ["text"]]);
  });

  it("drops blank text blocks and empty messages, and answers a user message typed between a tool_use and its result", () => {
    const params = nextRequest([
      user("hi"),
      { role: "assistant", content: [{ type: "text", text: "  " }, { type: "tool_use", id: "a", name: "t", input: {} }] },
      user("typed while the tool ran"),
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "ok" }] },
      { role: "assistant", content: [{ type: "text", text: "" }] },
      user("again"),
    ]);
    expect(validateRequest(params as unknown as Record<string, unknown>)).toBeNull();
    expect((params.messages[1]!.content as ContentBlockParam[]).map((b) => b.type)).toEqual(["tool_use"]);
  });

  it("starts with a user message", () => {
    const params = nextRequest([{ role: "assistant", content: "orphan" }, user("hi")]);
    expect(params.messages[0]!.role).toBe("user");
    expect(validateRequest(params as unknown as Record<string, unknown>)).toBeNull();
  });

  it("drops a tool_use whose id was used before and stores a non-object input as {}", () => {
    const params = nextRequest([
      user("hi"),
      use("a"),
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "ok" }] },
      { role: "assistant", content: [{ type: "tool_use", id: "a", name: "t", input: { a: "x" } }, { type: "tool_use", id: "c", name: "t", input: "text" as unknown as object }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "again" }, { type: "tool_result", tool_use_id: "c", content: "ok" }] },
      { role: "assistant", content: "done" },
    ]);
    expect(validateRequest(params as unknown as Record<string, unknown>)).toBeNull();
    expect(params.messages[3]!.content).toEqual([{ type: "tool_use", id: "c", name: "t", input: {} }]);
  });
});

describe("a response as it arrives", () => {
  it("gets unique tool_use ids, object inputs and no blank text; the calls keep what the model sent", () => {
    const content: ContentBlockParam[] = [
      { type: "text", text: " " },
      { type: "tool_use", id: "a", name: "t", input: "raw" as unknown as object },
      { type: "tool_use", id: "a", name: "t", input: { a: "y" } },
    ];
    const { content: stored, calls } = cleanResponse(content, new Set(["a"]), false);
    expect(stored).toEqual([
      { type: "tool_use", id: "a_2", name: "t", input: {} },
      { type: "tool_use", id: "a_3", name: "t", input: { a: "y" } },
    ]);
    expect(calls.map((c) => [c.id, c.input])).toEqual([["a_2", "raw"], ["a_3", { a: "y" }]]);
  });

  it("drops tool calls cut off by max_tokens", () => {
    const { content, calls } = cleanResponse([{ type: "text", text: "let me" }, { type: "tool_use", id: "a", name: "t", input: {} }], new Set(), true);
    expect(content).toEqual([{ type: "text", text: "let me" }]);
    expect(calls).toEqual([]);
  });

  it("keeps signed thinking as received (an omitted display's empty text too) and drops thinking cut off before its signature, as a load does", () => {
    const signed = { type: "thinking", thinking: "weigh it", signature: "c2lnbmVk" } as const;
    const omitted = { type: "thinking", thinking: "", signature: "b21pdHRlZA" } as const;
    const cut = { type: "thinking", thinking: "half a thou", signature: "" } as const;
    const redacted = { type: "redacted_thinking", data: "ZGF0YQ" } as const;
    const arriving = cleanResponse([signed, omitted, redacted, cut, { type: "text", text: "ok" }], new Set(), false);
    expect(arriving.content).toEqual([signed, omitted, redacted, { type: "text", text: "ok" }]);
    const loaded = repairMessages(
      [
        { type: "message", id: "u", ts: 1, message: { role: "user", content: "hi" } },
        { type: "message", id: "a", ts: 2, message: { role: "assistant", content: [signed, cut, { type: "text", text: "ok" }] } },
      ],
      { afterSummary: false, tail: "turn-start", ts: 3, newId: () => "n" },
    );
    expect(loaded.records[1]!.message.content).toEqual([signed, { type: "text", text: "ok" }]);
    expect(loaded.notes).toEqual(["dropped a thinking block without a signature (a)"]);
  });
});
