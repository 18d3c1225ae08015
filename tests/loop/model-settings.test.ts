import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { SessionStore } from "../../src/sessions/store.js";
import { ConfigError } from "../../src/errors.js";
import { startScriptedModel } from "../../src/testing/index.js";
import type { AgentConfig, AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions, scriptedModelPerTest, upperTool } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();
const WEB_AGENT: AgentConfig = { ...TEST_AGENT, id: "researcher", web: { search: { maxUses: 3 }, fetch: { maxUses: 2, maxContentTokens: 5000 } } };

const searchBlocks = [
  { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "node 20 end of life" } },
  {
    type: "web_search_tool_result",
    tool_use_id: "srvtoolu_1",
    content: [
      { type: "web_search_result", url: "https://nodejs.org/en/about/previous-releases", title: "Node.js Releases", encrypted_content: "EnC1", page_age: null },
      { type: "web_search_result", url: "https://endoflife.date/nodejs", title: "Node.js | endoflife.date", encrypted_content: "EnC2", page_age: "2 days" },
    ],
  },
];

describe("model settings in requests", () => {
  it("sends the agent's thinking budget with room above it, its effort, and options that override both", async () => {
    const m = await scripted([{ reply: "ok" }]);
    const ws = await tempWorkspace();
    const agent: AgentConfig = { ...TEST_AGENT, thinking: 8000, effort: "high" };
    await runAgentTurn("a", "hi", agent, turnOptions(m, ws));
    expect(m.requests[0]!.body).toMatchObject({ thinking: { type: "enabled", budget_tokens: 8000 }, max_tokens: 8000 + 8192, output_config: { effort: "high" } });
    await runAgentTurn("b", "hi", agent, turnOptions(m, ws, [], { thinking: "off", effort: "low" }));
    expect(m.requests[1]!.body).toMatchObject({ thinking: { type: "disabled" }, max_tokens: 8192, output_config: { effort: "low" } });
    await runAgentTurn("c", "hi", { ...TEST_AGENT, thinking: "adaptive" }, turnOptions(m, ws));
    expect(m.requests[2]!.body.thinking).toEqual({ type: "adaptive" });
    await runAgentTurn("d", "hi", TEST_AGENT, turnOptions(m, ws));
    expect(Object.keys(m.requests[3]!.body).filter((k) => k === "thinking" || k === "output_config")).toEqual([]);
  });

  it("refuses, before any request, a budget not below max_tokens, thinking with a forced tool choice, a choice of a tool not offered, and a tool named like a web tool, naming the agent and the setting", async () => {
    const m = await scripted([{ reply: "unused" }]);
    const ws = await tempWorkspace();
    const tooBig = runAgentTurn("k", "hi", { ...TEST_AGENT, thinking: 9000 }, turnOptions(m, ws, [], { maxTokens: 4096 }));
    await expect(tooBig).rejects.toThrow(ConfigError);
    await expect(tooBig).rejects.toThrow(/agent "main": "thinking" \(SOUL\.md\) budget 9000 must be below max_tokens \(4096\)/);
    const flagged = runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, ws, [], { thinking: 9000, maxTokens: 4096 }));
    await expect(flagged).rejects.toThrow(/agent "main": the turn's thinking setting \(an option or flag\) budget 9000 must be below/);
    const forced = runAgentTurn("k", "hi", { ...TEST_AGENT, toolChoice: "any" }, turnOptions(m, ws, [], { thinking: "adaptive" }));
    await expect(forced).rejects.toThrow(/agent "main": "tool_choice" \(SOUL\.md\) forces a tool call/);
    const unknown = runAgentTurn("k", "hi", { ...TEST_AGENT, toolChoice: { tool: "uper" } }, turnOptions(m, ws));
    await expect(unknown).rejects.toThrow(/"tool_choice" names the tool "uper", which this turn does not offer \(offered: upper\)/);
    const clashing = runAgentTurn("k", "hi", WEB_AGENT, turnOptions(m, ws, [], { tools: [{ ...upperTool(), name: "web_search" }] }));
    await expect(clashing).rejects.toThrow(/agent "researcher": a tool named "web_search" is given while its SOUL\.md "web" offers the server tool/);
    expect(m.requests).toHaveLength(0);
  });

  it("forces the tool choice on the first request of a turn only, so the turn can end", async () => {
    const m = await scripted([{ match: { toolResult: { content: "X" } }, reply: "done" }, { reply: { toolUses: [{ name: "upper", input: { text: "x" } }] } }]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "go", { ...TEST_AGENT, toolChoice: { tool: "upper" } }, turnOptions(m, ws));
    expect(result.text).toBe("done");
    expect(m.requests.map((r) => r.body.tool_choice)).toEqual([{ type: "tool", name: "upper" }, undefined]);
  });
});

describe("retries within a turn", () => {
  it("keeps the forced tool choice and the thinking budget's room when a tool call cut off by max_tokens is asked again", async () => {
    const m = await scripted([
      { match: { toolResult: { content: "X" } }, reply: "done" },
      // Each turn's first request (at its initial max_tokens) is cut off in the middle of its tool call.
      { match: (req) => req.body.max_tokens === 38_192 || req.body.max_tokens === 8192, reply: { toolUses: [{ name: "upper", input: { text: "x" } }], stopReason: "max_tokens" } },
      { reply: { toolUses: [{ name: "upper", input: { text: "x" } }] } },
    ]);
    const ws = await tempWorkspace();
    const agent: AgentConfig = { ...TEST_AGENT, toolChoice: { tool: "upper" }, thinking: "off" };
    const result = await runAgentTurn("k", "go", { ...agent, thinking: 30_000, toolChoice: "auto" }, turnOptions(m, ws));
    expect(result.text).toBe("done");
    // The budget counts toward max_tokens: the retry may grow past the plain ceiling of 32,000 by that much.
    expect(m.requests.map((r) => r.body.max_tokens)).toEqual([38_192, 62_000, 62_000]);
    const forced = await runAgentTurn("f", "go", agent, turnOptions(m, ws));
    expect(forced.text).toBe("done");
    expect(m.requests.slice(3).map((r) => [r.body.max_tokens, r.body.tool_choice])).toEqual([
      [8192, { type: "tool", name: "upper" }],
      [16_384, { type: "tool", name: "upper" }],
      [16_384, undefined],
    ]);
  });
});

describe("web server tools", () => {
  it("offers web_search and web_fetch at their newest versions with the agent's limits, the last tool carrying the cache breakpoint", async () => {
    const m = await scripted([{ reply: "ok" }]);
    const ws = await tempWorkspace();
    await runAgentTurn("k", "hi", WEB_AGENT, turnOptions(m, ws));
    const tools = m.requests[0]!.body.tools! as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(["upper", "web_search", "web_fetch"]);
    expect(tools[1]).toEqual({ type: "web_search_20260318", name: "web_search", max_uses: 3 });
    expect(tools[2]).toEqual({ type: "web_fetch_20260318", name: "web_fetch", max_uses: 2, max_content_tokens: 5000, cache_control: { type: "ephemeral" } });
  });

  it("leaves out a web tool the agent's tools: list does not name or the approvals file denies, and keeps them in plan mode", async () => {
    const m = await scripted([{ reply: "ok" }]);
    const ws = await tempWorkspace();
    await runAgentTurn("a", "hi", { ...WEB_AGENT, tools: ["upper", "web_search"] }, turnOptions(m, ws));
    await writeFile(join(ws, "exec-approvals.json"), JSON.stringify({ allowed: [], denied: ["web_s*"] }));
    await runAgentTurn("b", "hi", WEB_AGENT, turnOptions(m, ws));
    await runAgentTurn("c", "hi", { ...WEB_AGENT, tools: ["upper"] }, turnOptions(m, ws));
    await writeFile(join(ws, "exec-approvals.json"), JSON.stringify({ allowed: [], denied: [] }));
    await runAgentTurn("d", "hi", WEB_AGENT, turnOptions(m, ws, [], { permissionMode: "plan" }));
    const names = m.requests.map((r) => (r.body.tools ?? []).map((t) => (t as { name: string }).name));
    expect(names).toEqual([["upper", "web_search"], ["upper", "web_fetch"], ["upper"], ["upper", "exit_plan_mode", "web_search", "web_fetch"]]);
  });

  it("shows a search as a tool line and its results, stores the blocks as received and sends them back unchanged", async () => {
    const m = await scripted([
      { match: "and then?", reply: "nothing more" },
      { reply: { content: [...searchBlocks, { type: "text", text: "Node 20 ends in April 2026." }] } },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "when does node 20 end?", WEB_AGENT, turnOptions(m, ws, events));
    expect(result.text).toBe("Node 20 ends in April 2026.");
    const tools = events.filter((e) => e.type === "tool_call" || e.type === "tool_result");
    expect(tools).toEqual([
      { type: "tool_call", id: "srvtoolu_1", name: "web_search", input: { query: "node 20 end of life" }, server: true },
      {
        type: "tool_result",
        id: "srvtoolu_1",
        name: "web_search",
        isError: false,
        content: "2 results\n1. Node.js Releases — https://nodejs.org/en/about/previous-releases\n2. Node.js | endoflife.date — https://endoflife.date/nodejs",
        server: true,
      },
    ]);
    await runAgentTurn("k", "and then?", WEB_AGENT, turnOptions(m, ws));
    const sentBack = m.requests[1]!.body.messages![1]!;
    expect(sentBack.role).toBe("assistant");
    expect(sentBack.content).toEqual([...searchBlocks, { type: "text", text: "Node 20 ends in April 2026." }]);
  });

  it("drops a paused search when the continuation overflows the context window, and answers again from the user's message", async () => {
    const m = await scripted([
      { match: { system: /summarise an assistant/ }, reply: "SUMMARY: a greeting." },
      { match: "hello", reply: "hi" },
      { match: (req) => req.body.messages?.at(-1)?.role === "assistant", times: 1, reply: { text: "", stopReason: "model_context_window_exceeded" } },
      { match: "long topic", times: 1, reply: { serverTools: [{ search: "long topic", results: [{ url: "https://a.example", title: "A" }] }], stopReason: "pause_turn" } },
      { reply: "short answer" },
    ]);
    const ws = await tempWorkspace();
    await runAgentTurn("k", "hello", WEB_AGENT, turnOptions(m, ws));
    const result = await runAgentTurn("k", "research a long topic", WEB_AGENT, turnOptions(m, ws));
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("short answer");
    const turnRequests = m.requests.slice(1).filter((r) => !/summarise an assistant/.test(JSON.stringify(r.body.system)));
    expect(turnRequests.map((r) => r.body.messages!.at(-1)!.role)).toEqual(["user", "assistant", "user"]);
    const stored = (await new SessionStore(`${ws}/sessions`).show("k")).filter((r) => r.type === "message" && r.message.role === "assistant");
    expect(stored.map((r) => (r.type === "message" ? r.message.content : undefined))).toEqual([[{ type: "text", text: "short answer" }]]);
    const next = await runAgentTurn("k", "thanks", WEB_AGENT, turnOptions(m, ws));
    expect(next.stopReason).toBe("end_turn");
  });

  it("names the agent and how to turn web off when the provider refuses the server tools, after one request", async () => {
    const m = await startScriptedModel([{ reply: "unused" }], { serverTools: false });
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "search something", WEB_AGENT, turnOptions(m, ws)).finally(() => m.close());
    expect(result.stopReason).toBe("error");
    expect(result.error).toContain('agent "researcher" offers the web server tools');
    expect(result.error).toContain('set "web: false" in agents/researcher/SOUL.md');
    expect(result.error).toContain("web_search_20260318");
    expect(m.requests).toHaveLength(1);
    expect(m.rejected).toHaveLength(1);
    const records = await new SessionStore(`${ws}/sessions`).show("k", { all: true });
    expect(records.at(-1)).toMatchObject({ type: "message", synthetic: true });
  });
});
