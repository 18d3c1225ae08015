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

  it("answers is_error when the child ends in a brake, its requests counted in the parent's", async () => {
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

  it("gives the child its own prompt and settings, never the parent's, and only tools the parent has", async () => {
    const m = await scripted([
      { match: isChild("writer"), reply: "written" },
      { match: (req) => resultTexts(req).length > 0, reply: "ok" },
      { reply: { toolUses: [{ name: "delegate", input: { agent: "writer", task: "write" } }] } },
    ]);
    const ws = await tempWorkspace();
    const agents = { ...AGENTS, writer: { ...AGENTS["writer"]!, tools: ["upper", "write_file"], effort: "low" as const } };
    const parent: AgentConfig = { ...MAIN, prompt: "PARENT SYSTEM", thinking: 4000, effort: "max" };
    await runAgentTurn("k", "go", parent, turnOptions(m, ws, [], { agents }));
    const child = m.requests.find(isChild("writer"))!;
    expect(systemOf(child)).not.toContain("PARENT SYSTEM");
    expect(child.body.thinking).toBeUndefined();
    expect(child.body.output_config).toEqual({ effort: "low" });
    expect(child.body.tool_choice).toBeUndefined();
    // The parent has no write_file (builtinTools is off): the child, which lists it, does not get it either.
    expect((child.body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(["upper"]);
  });

  it("runs at most four children at once, and a child that cannot start still ends, as an error", async () => {
    let running = 0;
    let most = 0;
    const m = await scripted([
      {
        match: isChild("researcher"),
        reply: async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 150));
          running--;
          return "found";
        },
      },
      { match: (req) => resultTexts(req).length > 0, reply: "ok" },
      { reply: { toolUses: Array.from({ length: 6 }, (_, i) => ({ name: "delegate", input: { agent: i === 5 ? "writer" : "researcher", task: `part ${i}` } })) } },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    // The writer's own settings are refused when its turn starts: a budget not below its max_tokens.
    const agents = { ...AGENTS, writer: { ...AGENTS["writer"]!, thinking: 9000, maxTokens: 4000 } };
    await runAgentTurn("k", "go", MAIN, turnOptions(m, ws, events, { agents }));
    expect(most).toBe(4);
    const results = resultTexts(m.requests.at(-1)!);
    expect(results.slice(0, 5)).toEqual(Array(5).fill("found"));
    expect(results[5]).toMatch(/the subagent writer stopped \(error: agent "writer": "thinking" \(SOUL\.md\) budget 9000/);
    const ends = events.flatMap((e) => (e.type === "subagent_end" ? [[e.agentId, e.stopReason]] : []));
    expect(ends.filter(([id]) => id === "writer")).toEqual([["writer", "error"]]);
    expect(ends).toHaveLength(6);
  });

  it("shares the parent's iteration brake with children running together: they cannot each spend what is left", async () => {
    const m = await scripted([
      { match: isChild("researcher"), reply: (req) => ({ toolUses: [{ name: "upper", input: { text: `step ${req.body.messages?.length ?? 0}` } }] }) },
      { match: (req) => resultTexts(req).length > 0, reply: "ok" },
      { reply: { toolUses: Array.from({ length: 4 }, (_, i) => ({ name: "delegate", input: { agent: "researcher", task: `part ${i}` } })) } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", MAIN, turnOptions(m, ws, [], { agents: AGENTS, maxIterations: 6 }));
    // One parent request, then the children's, never more than the six the turn may make.
    expect(m.requests.length).toBeLessThanOrEqual(6);
    expect(result.iterations).toBe(6);
    expect(result.stopReason).toBe("max_iterations");
  });

  it("stops the children when the parent is interrupted", async () => {
    const m = await scripted([
      { match: isChild("researcher"), fault: { delayMs: 3_000 }, reply: "this takes a while" },
      { reply: { toolUses: [{ name: "delegate", input: { agent: "researcher", task: "slow work" } }] } },
    ]);
    const ws = await tempWorkspace();
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const onEvent = (e: AgentEvent): void => {
      events.push(e);
      if (e.type === "subagent_start") setTimeout(() => controller.abort(), 100);
    };
    const started = Date.now();
    const result = await runAgentTurn("k", "go", MAIN, turnOptions(m, ws, [], { agents: AGENTS, signal: controller.signal, onEvent }));
    expect(result.stopReason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(1_500);
    // The child's own turn ended as interrupted too, before the delegate call was answered and the parent ended.
    const order = events.flatMap((e) => (e.type === "turn_end" || e.type === "subagent_end" ? [`${e.type}${e.parentToolUseId ? " (child)" : ""} ${"stopReason" in e ? e.stopReason : ""}`] : []));
    expect(order).toEqual(["turn_end (child) aborted", "subagent_end aborted", "turn_end aborted"]);
  });

  it("offers no delegate tool to an agent without delegates", async () => {
    const m = await scripted([{ reply: "ok" }]);
    const ws = await tempWorkspace();
    await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, ws, [], { agents: AGENTS }));
    expect((m.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(["upper"]);
  });
});
