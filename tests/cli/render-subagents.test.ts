import { describe, expect, it } from "vitest";
import { createRenderer, type RenderOptions } from "../../src/cli/render.js";
import type { AgentEvent, Usage } from "../../src/types.js";

/** A renderer writing to a string. */
function renderTo(opts: Partial<RenderOptions> = {}) {
  let written = "";
  const render = createRenderer({ write: (text) => void (written += text) }, { color: false, streamText: true, now: () => 0, ...opts });
  return { feed: (...events: AgentEvent[]) => events.forEach(render), lines: () => written.split("\n") };
}

const USAGE: Usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 };
const child = (parent: string, event: AgentEvent): AgentEvent => ({ ...event, parentToolUseId: parent });
const start = (id: string, agentId: string, task: string): AgentEvent => ({ type: "subagent_start", toolUseId: id, agentId, sessionKey: `agent:${agentId}:sub-${id}`, task });
const end = (id: string, agentId: string, stopReason: "end_turn" | "max_iterations", costUsd: number): AgentEvent => ({ type: "subagent_end", toolUseId: id, agentId, stopReason, usage: USAGE, costUsd });

describe("a subagent on the terminal", () => {
  it("shows the delegate line, the child's tool lines indented under it, and its end with requests and cost; never its streamed text", () => {
    const r = renderTo();
    r.feed(
      { type: "text_delta", text: "Let me ask Scout." },
      { type: "tool_call", id: "d1", name: "delegate", input: { agent: "researcher", task: "Find the release date of Node 20\nand cite it" } },
      start("d1", "researcher", "Find the release date of Node 20\nand cite it"),
      child("d1", { type: "turn_start", sessionKey: "agent:researcher:sub-d1", agentId: "researcher" }),
      child("d1", { type: "request_start", iteration: 1, model: "m" }),
      child("d1", { type: "thinking_delta", text: "secret" }),
      child("d1", { type: "tool_call", id: "c1", name: "read_file", input: { path: "notes.md" } }),
      child("d1", { type: "tool_result", id: "c1", name: "read_file", isError: false, content: "Node 20: 18 April 2023" }),
      child("d1", { type: "request_start", iteration: 2, model: "m" }),
      child("d1", { type: "text_delta", text: "It was 18 April 2023." }),
      child("d1", { type: "turn_end", stopReason: "end_turn", usage: USAGE, costUsd: 0.0123, iterations: 2 }),
      end("d1", "researcher", "end_turn", 0.0123),
      { type: "tool_result", id: "d1", name: "delegate", isError: false, content: "It was 18 April 2023." },
      { type: "text_delta", text: "Scout says 18 April 2023." },
    );
    expect(r.lines()).toEqual([
      "Let me ask Scout.",
      "→ delegate researcher: Find the release date of Node 20",
      "    → read_file: notes.md",
      "      ✓ Node 20: 18 April 2023",
      "  ✓ researcher done (2 requests, $0.0123)",
      "Scout says 18 April 2023.",
    ]);
  });

  it("names each child on its lines while two run at once, and says how one that hit a brake stopped", () => {
    const r = renderTo({ streamText: false });
    r.feed(
      { type: "tool_call", id: "d1", name: "delegate", input: { agent: "researcher", task: "a" } },
      { type: "tool_call", id: "d2", name: "delegate", input: { agent: "researcher", task: "b" } },
      start("d1", "researcher", "look up a"),
      start("d2", "researcher", "look up b"),
      child("d1", { type: "request_start", iteration: 1, model: "m" }),
      child("d2", { type: "request_start", iteration: 1, model: "m" }),
      child("d2", { type: "tool_call", id: "c2", name: "memory_search", input: { query: "b" } }),
      child("d1", { type: "tool_call", id: "c1", name: "memory_search", input: { query: "a" } }),
      child("d1", { type: "tool_result", id: "c1", name: "memory_search", isError: false, content: "no notes" }),
      end("d1", "researcher", "end_turn", 0.001),
      child("d2", { type: "tool_result", id: "c2", name: "memory_search", isError: true, content: "boom" }),
      end("d2", "researcher", "max_iterations", 0.002),
      { type: "tool_result", id: "d1", name: "delegate", isError: false, content: "a is 1" },
      { type: "tool_result", id: "d2", name: "delegate", isError: true, content: "stopped: max_iterations" },
    );
    expect(r.lines()).toEqual([
      "→ delegate researcher: look up a",
      "→ delegate researcher#2: look up b",
      "    researcher#2 · → memory_search: b",
      "    researcher · → memory_search: a",
      "    researcher ·   ✓ no notes",
      "  ✓ researcher done (1 request, $0.0010)",
      "      ✗ boom",
      "  ✗ researcher#2 stopped: max_iterations (1 request, $0.0020)",
      "",
    ]);
  });

  it("shows a delegate call refused before any child ran, with its error", () => {
    const r = renderTo({ streamText: false });
    r.feed(
      { type: "tool_call", id: "d1", name: "delegate", input: { agent: "nobody", task: "x" } },
      { type: "tool_result", id: "d1", name: "delegate", isError: true, content: 'invalid input: agent must be one of "researcher"' },
    );
    expect(r.lines()).toEqual(['→ delegate: {"agent":"nobody","task":"x"}', '  ✗ invalid input: agent must be one of "researcher"', ""]);
  });

  it("escapes what the model wrote in the task and the child's lines", () => {
    const r = renderTo({ streamText: false });
    r.feed(start("d1", "researcher", "clear \x1b[2J now"), child("d1", { type: "tool_call", id: "c", name: "run_command", input: { command: "echo \u202eok" } }));
    expect(r.lines()).toEqual(["→ delegate researcher: clear \\x1b[2J now", "    → run_command: echo \\u202eok", ""]);
  });
});

describe("steering and mode lines", () => {
  it("shows a steering message dim as (steer), and a mode the plan's approval chose; a change the user made shows nothing", () => {
    const r = renderTo({ streamText: false });
    r.feed(
      { type: "steer", text: "also check\nthe tests" },
      { type: "mode", mode: "plan", previous: "default", by: "user" },
      { type: "mode", mode: "acceptEdits", previous: "plan", by: "exit_plan_mode" },
    );
    expect(r.lines()).toEqual(["(steer) also check the tests", "mode: plan → acceptEdits (plan accepted)", ""]);
  });
});
