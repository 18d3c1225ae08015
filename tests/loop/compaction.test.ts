import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { defineTool } from "../../src/tools/define.js";
import { summarizeUsage } from "../../src/model/usage.js";
import { SessionStore } from "../../src/sessions/store.js";
import { startScriptedModel, validateRequest, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  expect(model?.rejected ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

const SUMMARY_RULE: Rule = { match: { system: /summarise an assistant's working session/ }, reply: "SUMMARY: the user asked many questions." };
const isSummaryRequest = (body: { system?: unknown }): boolean => /summarise an assistant/.test(JSON.stringify(body.system ?? ""));

/** A model that answers each question with two tool rounds, then text. */
function chattyRules(extra: Rule[] = []): Rule[] {
  return [
    ...extra,
    { match: { toolResult: { content: /^STEP-2/ } }, reply: { text: "answer {{tool_result}} " + "words ".repeat(50) } },
    { match: { toolResult: { content: /^STEP-1/ } }, reply: { toolUses: [{ name: "upper", input: { text: "step-2 {{tool_result}}" } }] } },
    { match: /question/, reply: { toolUses: [{ name: "upper", input: { text: "step-1 {{user_text}}" } }] } },
  ];
}

async function askMany(m: ScriptedModel, ws: string, n: number, events: AgentEvent[], compactAt: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const result = await runAgentTurn("k", `question ${i} ${"padding ".repeat(40)}`, TEST_AGENT, turnOptions(m, ws, events, { compactAt }));
    expect(result.stopReason).toBe("end_turn");
  }
}

describe("compaction", () => {
  it("compacts a long session with many tool calls, keeping every pair whole and every request valid", async () => {
    model = await startScriptedModel(chattyRules([SUMMARY_RULE]));
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    await askMany(model, ws, 12, events, 3_000);
    const compactions = events.filter((e) => e.type === "compaction");
    expect(compactions.length).toBeGreaterThan(0);
    for (const request of model.requests) expect(validateRequest(request.body)).toBeNull();
    const last = model.requests.filter((r) => !isSummaryRequest(r.body)).at(-1)!;
    expect(JSON.stringify(last.body.messages)).toMatch(/SUMMARY: the user asked many questions/);
    const file = await readFile(join(ws, "sessions", "k.jsonl"), "utf8");
    expect(file).toMatch(/question 0 /);
    const all = await new SessionStore(join(ws, "sessions")).show("k", { all: true });
    expect(all.filter((r) => r.type === "message").length).toBeGreaterThan((await new SessionStore(join(ws, "sessions")).load("k")).records.length);
  });

  it("counts the summary request in the turn's cost and in the session file", async () => {
    model = await startScriptedModel(chattyRules([{ match: { system: /summarise an assistant/ }, reply: { text: "SUMMARY", outputTokens: 777 } }]));
    const ws = await tempWorkspace();
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await runAgentTurn("k", `question ${i} ${"padding ".repeat(40)}`, TEST_AGENT, turnOptions(model, ws, [], { compactAt: 3_000 })));
    const records = await new SessionStore(join(ws, "sessions")).show("k", { all: true });
    const compactions = records.filter((r) => r.type === "compaction");
    expect(compactions.length).toBeGreaterThan(0);
    for (const c of compactions) expect(c.usage?.outputTokens).toBe(777);
    const fromFile = summarizeUsage(records.flatMap((r) => (r.type === "message" || r.type === "compaction" ? [r] : [])));
    const fromTurns = results.reduce((sum, r) => sum + r.usage.outputTokens, 0);
    expect(fromFile.usage.outputTokens).toBe(fromTurns);
  });

  it("goes on uncompacted with a warning when the summary call fails but the request still fits", async () => {
    model = await startScriptedModel(chattyRules([{ match: { system: /summarise an assistant/ }, fault: { status: 400, message: "nope" } }]));
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    await askMany(model, ws, 6, events, 2_000);
    expect(events.some((e) => e.type === "warning" && /compaction skipped: the summary request failed/.test(e.message))).toBe(true);
    expect(events.some((e) => e.type === "compaction")).toBe(false);
    expect(model.requests.filter((r) => isSummaryRequest(r.body)).length).toBeLessThanOrEqual(6);
  });

  it("trims old oversized tool results in what is sent when compaction fails, never in the file", async () => {
    let n = 0;
    const big = defineTool({ name: "dump", description: "Big output.", input: z.object({ part: z.number() }), readOnly: true, run: () => `${n++}:` + "z".repeat(5_000) });
    let part = 0;
    const next = () => ({ toolUses: [{ name: "dump", input: { part: part++ } }] });
    model = await startScriptedModel([
      { match: { system: /summarise an assistant/ }, fault: { status: 400, message: "no summaries today" } },
      { match: { toolResult: { name: "dump" } }, times: 9, reply: next },
      { match: "go", reply: next },
      { reply: "done" },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "warm up", TEST_AGENT, turnOptions(model, ws, events, { tools: [big], compactAt: 1_000_000 }));
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(model, ws, events, { tools: [big], compactAt: 5_000 }));
    expect({ stop: result.stopReason, error: result.error }).toEqual({ stop: "end_turn", error: undefined });
    expect(result.text).toBe("done");
    expect(model.requests.filter((r) => isSummaryRequest(r.body))).toHaveLength(1);
    const last = JSON.stringify(model.requests.at(-1)!.body.messages);
    expect(last).toMatch(/characters of this old tool result trimmed from the request/);
    const file = await readFile(join(ws, "sessions", "k.jsonl"), "utf8");
    expect(file).not.toMatch(/trimmed from the request/);
    expect(file.match(/z{5000}/g)).toHaveLength(10);
  });

  it("compacts and retries once after model_context_window_exceeded", async () => {
    model = await startScriptedModel(
      chattyRules([SUMMARY_RULE, { match: /question 5/, times: 1, reply: { text: "a partial answer", stopReason: "model_context_window_exceeded" } }]),
    );
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    await askMany(model, ws, 6, events, 1_000_000);
    expect(events.filter((e) => e.type === "compaction")).toHaveLength(1);
    expect(events.find((e) => e.type === "compaction")).toMatchObject({ reason: "the model's context window was exceeded" });
    for (const request of model.requests) expect(request.body.messages!.at(-1)!.role).toBe("user");
  });

  it("compacts and retries once after a 'prompt is too long' 400", async () => {
    model = await startScriptedModel(
      chattyRules([SUMMARY_RULE, { match: /question 4/, times: 1, fault: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" } }]),
    );
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    await askMany(model, ws, 5, events, 1_000_000);
    expect(events.filter((e) => e.type === "compaction")).toHaveLength(1);
  });

  it("ends with a clear error and a valid session when the context overflows and the summary fails", async () => {
    model = await startScriptedModel(
      chattyRules([
        { match: { system: /summarise an assistant/ }, fault: { status: 529, retryAfterMs: 1 } },
        { match: /question 3/, reply: { content: [], stopReason: "model_context_window_exceeded" } },
      ]),
    );
    const ws = await tempWorkspace();
    await askMany(model, ws, 3, [], 1_000_000);
    const result = await runAgentTurn("k", "question 3", TEST_AGENT, turnOptions(model, ws, [], { compactAt: 1_000_000 }));
    expect(result.stopReason).toBe("model_context_window_exceeded");
    expect(result.error).toMatch(/compaction failed: the summary request failed/);
    const loaded = await new SessionStore(join(ws, "sessions")).load("k");
    expect(validateRequest({ model: "m", max_tokens: 10, messages: [...loaded.messages, { role: "user", content: "next" }] })).toBeNull();
  });

  it("names the skills loaded before the cut in the summary", async () => {
    model = await startScriptedModel([
      SUMMARY_RULE,
      { match: /first/, reply: { toolUses: [{ name: "load_skill", input: { name: "repo-summary" } }] } },
      { match: { toolResult: { name: "load_skill" } }, reply: "loaded " + "x ".repeat(400) },
      { reply: "ok " + "y ".repeat(400) },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const opts = turnOptions(model, ws, events, { compactAt: 1_500, builtinTools: true });
    await runAgentTurn("k", "first", TEST_AGENT, opts);
    for (let i = 0; i < 4; i++) await runAgentTurn("k", `more ${i}`, TEST_AGENT, opts);
    expect(events.some((e) => e.type === "compaction")).toBe(true);
    const loaded = await new SessionStore(join(ws, "sessions")).load("k");
    expect(loaded.compaction?.summary).toMatch(/load_skill when needed\): repo-summary/);
  });
});
