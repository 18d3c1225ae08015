import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildRequest } from "../../src/loop/request.js";
import { defineTool } from "../../src/tools/define.js";
import { countCacheBreakpoints, validateRequest } from "../../src/testing/index.js";
import type { ContentBlockParam, MessageParam } from "../../src/types.js";

const tool = defineTool({ name: "t", description: "d", input: z.object({ a: z.string() }), run: () => "" });
const use = (id: string): MessageParam => ({ role: "assistant", content: [{ type: "tool_use", id, name: "t", input: { a: "x" } }] });
const answer = (id: string): MessageParam => ({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] });
const user = (text: string): MessageParam => ({ role: "user", content: text });
const build = (messages: MessageParam[]) => buildRequest({ model: "m", maxTokens: 10, system: "sys", tools: [tool], messages });

describe("buildRequest", () => {
  it("never sends temperature, top_p or top_k", () => {
    const params = build([user("hi")]) as unknown as Record<string, unknown>;
    expect(Object.keys(params).filter((k) => ["temperature", "top_p", "top_k"].includes(k))).toEqual([]);
  });

  it("puts at most 4 cache breakpoints: tools, system, previous and newest message", () => {
    const history: MessageParam[] = [user("q")];
    for (let i = 0; i < 10; i++) history.push(use(`id${i}`), answer(`id${i}`));
    const params = build(history);
    expect(countCacheBreakpoints(params as unknown as Record<string, unknown>)).toBe(4);
    expect(params.tools!.at(-1)).toHaveProperty("cache_control");
    const marked = params.messages.flatMap((m, i) => (typeof m.content !== "string" && m.content.some((b) => "cache_control" in b && b.cache_control) ? [i] : []));
    expect(marked).toEqual([params.messages.length - 3, params.messages.length - 1]);
  });

  it("never puts cache_control on blank text or a thinking block, and strips one a thinking block carried", () => {
    const blankLast = build([user("q"), { role: "assistant", content: "a" }, { role: "user", content: [{ type: "text", text: "real" }, { type: "text", text: "  " }] }]);
    expect(blankLast.messages.at(-1)!.content).toEqual([{ type: "text", text: "real", cache_control: { type: "ephemeral" } }, { type: "text", text: "  " }]);
    const thinking = { type: "thinking", thinking: "t", signature: "s", cache_control: { type: "ephemeral" } } as unknown as ContentBlockParam;
    const params = build([user("q"), { role: "assistant", content: [thinking] }]);
    expect(JSON.stringify(params.messages.at(-1))).not.toContain("cache_control");
  });

  it("strips cache_control that history blocks carried, so the count stays at 4", () => {
    const tagged: MessageParam = { role: "user", content: [{ type: "text", text: "old", cache_control: { type: "ephemeral" } }] };
    const params = build([tagged, { role: "assistant", content: "a" }, tagged, { role: "assistant", content: "b" }, user("c"), { role: "assistant", content: "d" }, user("e")]);
    expect(countCacheBreakpoints(params as unknown as Record<string, unknown>)).toBe(4);
  });

  it("derives the input schema from zod, as an object schema", () => {
    expect(tool.inputSchema).toMatchObject({ type: "object", properties: { a: { type: "string" } }, required: ["a"] });
  });

  it("rejects a bad tool definition when it is defined", () => {
    expect(() => defineTool({ name: "bad name!", description: "", input: z.object({}), run: () => "" })).toThrow(/must match/);
  });
});

describe("cache breakpoints inside tool results", () => {
  it("strips cache_control a tool put inside its result, so the request keeps at most 4", () => {
    const tagged: MessageParam = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "a", content: [{ type: "text", text: "doc", cache_control: { type: "ephemeral" } }] }],
    };
    const params = build([user("q"), use("a"), tagged, { role: "assistant", content: "b" }, user("c"), { role: "assistant", content: "d" }, user("e")]);
    expect(countCacheBreakpoints(params as unknown as Record<string, unknown>)).toBe(4);
    expect(validateRequest(params as unknown as Record<string, unknown>)).toBeNull();
  });
});

describe("cache lifetimes", () => {
  const history: MessageParam[] = [user("q"), use("a"), answer("a")];
  const ttls = (params: ReturnType<typeof build>) => [
    (params.tools!.at(-1) as { cache_control?: { ttl?: string } }).cache_control?.ttl ?? "5m",
    ...(params.system as Array<{ cache_control?: { ttl?: string } }>).map((b) => b.cache_control?.ttl ?? "5m"),
    ...params.messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content.flatMap((b) => ("cache_control" in b && b.cache_control ? [b.cache_control.ttl ?? "5m"] : [])))),
  ];
  const of = (cacheTtl: "5m" | "1h" | "auto") => buildRequest({ model: "m", maxTokens: 10, system: "sys", tools: [tool], messages: history, cacheTtl });

  it("keeps five minutes by default, an hour everywhere with 1h, an hour on tools and system alone with auto; every one valid", () => {
    expect(ttls(build(history))).toEqual(["5m", "5m", "5m", "5m"]);
    expect(JSON.stringify(build(history))).not.toContain("ttl");
    expect(ttls(of("1h"))).toEqual(["1h", "1h", "1h", "1h"]);
    expect(ttls(of("auto"))).toEqual(["1h", "1h", "5m", "5m"]);
    for (const ttl of ["5m", "1h", "auto"] as const) expect(validateRequest(of(ttl) as unknown as Record<string, unknown>)).toBeNull();
  });
});
