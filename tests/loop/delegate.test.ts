import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { SessionStore } from "../../src/sessions/store.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import type { AgentConfig, AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions, scriptedModelPerTest } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();
const MAIN: AgentConfig = { ...TEST_AGENT, delegates: ["researcher", "writer"] };
const AGENTS: Record<string, AgentConfig> = {
  main: MAIN,
  researcher: { id: "researcher", name: "Scout", prompt: "You are the researcher." },
  writer: { id: "writer", name: "Quill", prompt: "You are the writer.", delegates: ["researcher"] },
};

const systemOf = (req: RecordedRequest): string => JSON.stringify(req.body.system ?? "");
const isChild = (name: string) => (req: RecordedRequest): boolean => systemOf(req).includes(`You are the ${name}.`);
const resultTexts = (req: RecordedRequest): string[] => {
  const last = req.body.messages?.at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content.flatMap((b) => (b.type === "tool_result" ? [typeof b.content === "string" ? b.content : (b.content ?? []).map((c) => ("text" in c ? c.text : "")).join("")] : []));
};

describe("the delegate tool", () => {
  it("runs two delegates of one response at the same time, each in its own session linked to the parent, and rolls their cost up", async () => {
    const m = await scripted([
      { match: isChild("researcher"), fault: { delayMs: 800 }, reply: "found: three sources" },
      { match: isChild("writer"), fault: { delayMs: 800 }, reply: "drafted: one page" },
      { match: (req) => resultTexts(req).length > 0, reply: "both done: {{tool_result}}" },
      {
        reply: {
          toolUses: [
            { name: "delegate", input: { agent: "researcher", task: "find sources on tides" }, id: "toolu_r" },
            { name: "delegate", input: { agent: "writer", task: "draft a page on tides" }, id: "toolu_w" },
          ],
        },
      },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const started = Date.now();
    const result = await runAgentTurn("agent:main:main", "research and write about tides", MAIN, turnOptions(m, ws, events, { agents: AGENTS }));
    const elapsed = Date.now() - started;
    expect(result.stopReason).toBe("end_turn");
    expect(resultTexts(m.requests.at(-1)!)).toEqual(["found: three sources", "drafted: one page"]);
    // Each child's answer waits 800 ms at the server; one after the other would take over 1.6 s.
    expect(elapsed).toBeLessThan(1_500);
    const store = new SessionStore(`${ws}/sessions`);
    for (const [agent, id] of [["researcher", "toolu_r"], ["writer", "toolu_w"]] as const) {
      const records = await store.show(`agent:${agent}:sub-${id}`, { all: true });
      expect(records[0]).toMatchObject({ type: "session", agentId: agent, parent: { sessionKey: "agent:main:main", toolUseId: id } });
    }
    const starts = events.filter((e) => e.type === "subagent_start").map((e) => (e.type === "subagent_start" ? [e.agentId, e.sessionKey] : []));
    expect(starts).toEqual([["researcher", "agent:researcher:sub-toolu_r"], ["writer", "agent:writer:sub-toolu_w"]]);
    const childTurnStarts = events.filter((e) => e.type === "turn_start" && e.parentToolUseId !== undefined).map((e) => e.parentToolUseId);
    expect(childTurnStarts.sort()).toEqual(["toolu_r", "toolu_w"]);
    const ends = events.flatMap((e) => (e.type === "subagent_end" ? [e] : []));
    const childCost = ends.reduce((sum, e) => sum + e.costUsd, 0);
    const childInput = ends.reduce((sum, e) => sum + e.usage.inputTokens + e.usage.cacheReadTokens + e.usage.cacheWriteTokens, 0);
    expect(childCost).toBeGreaterThan(0);
    const parentOwn = events.flatMap((e) => (e.type === "usage" && e.parentToolUseId === undefined ? [e.costUsd] : [])).reduce((a, b) => a + b, 0);
    expect(result.costUsd).toBeCloseTo(parentOwn + childCost, 10);
    expect(result.usage.inputTokens + result.usage.cacheReadTokens + result.usage.cacheWriteTokens).toBeGreaterThan(childInput);
    expect(result.iterations).toBe(4);
  });

  it("gives a child no delegate tool, only tools the parent has, and the parent's mode, which it cannot loosen", async () => {
    const m = await scripted([
      { match: (req) => isChild("writer")(req) && resultTexts(req).length > 0, reply: "could not: {{tool_result}}" },
      { match: isChild("writer"), reply: { toolUses: [{ name: "write_file", input: { path: "page.md", content: "tides" } }] } },
      { match: (req) => resultTexts(req).length > 0, reply: "parent done" },
      { reply: { toolUses: [{ name: "delegate", input: { agent: "writer", task: "write page.md" } }] } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "write it", MAIN, turnOptions(m, ws, [], { agents: AGENTS, builtinTools: true, permissionMode: "plan" }));
    expect(result.text).toBe("parent done");
    const childRequests = m.requests.filter(isChild("writer"));
    const childTools = (childRequests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name);
    expect(childTools).not.toContain("delegate");
    expect(childTools).toContain("write_file");
    expect(resultTexts(m.requests.at(-1)!)[0]).toMatch(/^could not: .*plan mode/i);
  });

  it("answers is_error when the child ends in a brake, and the parent's budget covers the child", async () => {
    const m = await scripted([
      { match: isChild("researcher"), reply: { toolUses: [{ name: "upper", input: { text: "again" } }] } },
      { match: (req) => resultTexts(req).length > 0, reply: "parent saw: {{tool_result}}" },
      { reply: { toolUses: [{ name: "delegate", input: { agent: "researcher", task: "loop forever" } }] } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", MAIN, turnOptions(m, ws, [], { agents: AGENTS, maxIterations: 6 }));
    const last = m.requests.at(-1)!.body.messages!.at(-1)!;
    const block = Array.isArray(last.content) ? last.content[0] : undefined;
    expect(block).toMatchObject({ type: "tool_result", is_error: true });
    expect(resultTexts(m.requests.at(-1)!)[0]).toMatch(/the subagent researcher stopped \((repeated_tool_call|max_iterations)/);
    expect(result.iterations).toBeLessThanOrEqual(7);
  });

  it("stops the children when the parent is interrupted", async () => {
    const m = await scripted([
      { match: isChild("researcher"), fault: { delayMs: 3_000 }, reply: "this takes a while" },
      { reply: { toolUses: [{ name: "delegate", input: { agent: "researcher", task: "slow work" } }] } },
    ]);
    const ws = await tempWorkspace();
    const controller = new AbortController();
    const onEvent = (e: AgentEvent): void => {
      if (e.type === "subagent_start") setTimeout(() => controller.abort(), 100);
    };
    const started = Date.now();
    const result = await runAgentTurn("k", "go", MAIN, turnOptions(m, ws, [], { agents: AGENTS, signal: controller.signal, onEvent }));
    expect(result.stopReason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("offers no delegate tool to an agent without delegates", async () => {
    const m = await scripted([{ reply: "ok" }]);
    const ws = await tempWorkspace();
    await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, ws, [], { agents: AGENTS }));
    expect((m.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(["upper"]);
  });
});
