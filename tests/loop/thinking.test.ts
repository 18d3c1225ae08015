import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { SessionStore } from "../../src/sessions/store.js";
import { summarizeUsage, WEB_SEARCH_USD } from "../../src/model/usage.js";
import type { RecordedRequest, Reply } from "../../src/testing/index.js";
import type { AgentConfig, AgentEvent } from "../../src/types.js";
import { TEST_AGENT, eventTypes, tempWorkspace, turnOptions, scriptedModelPerTest } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();
const THINKER: AgentConfig = { ...TEST_AGENT, thinking: 2048 };
const RESEARCHER: AgentConfig = { ...TEST_AGENT, id: "researcher", thinking: 2048, web: { search: { maxUses: 3 }, fetch: { maxUses: 3 } } };

/** The number of tool results in the request's last user message, or 0 when it is plain text. */
function round(req: RecordedRequest): number {
  const messages = req.body.messages ?? [];
  let rounds = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    if (typeof m.content === "string" || !m.content.some((b) => b.type === "tool_result")) break;
    rounds++;
  }
  return rounds;
}

/** Thinks, then calls `upper` until five rounds are done, then answers. */
function fiveRounds(req: RecordedRequest): Reply {
  const n = round(req);
  if (n >= 5) return { thinking: `all ${n} rounds done`, text: `finished after ${n} rounds` };
  return { thinking: `round ${n + 1}: call the tool again`, toolUses: [{ name: "upper", input: { text: `step ${n + 1}` } }] };
}

function sessionFile(ws: string, key: string): string {
  return new SessionStore(`${ws}/sessions`).fileFor(key);
}

describe("thinking in the loop", () => {
  it("runs a five-round tool loop with thinking, survives a crash mid-tool and a compaction, and no request is rejected", async () => {
    const m = await scripted([
      { match: { system: /summarise an assistant/ }, reply: "SUMMARY: five rounds of upper." },
      { reply: fiveRounds },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const first = await runAgentTurn("k", "do the five steps", THINKER, turnOptions(m, ws, events));
    expect(first.text).toBe("finished after 5 rounds");
    expect(first.iterations).toBe(6);
    // Every request of the tool loop sent back the signed thinking that opened each assistant message.
    for (const req of m.requests.slice(1, 6)) {
      const assistant = req.body.messages!.at(-2)!;
      expect(Array.isArray(assistant.content) && assistant.content[0]!.type).toBe("thinking");
    }
    expect(first.usage.thinkingTokens).toBeGreaterThan(0);
    const types = eventTypes(events).filter((type, i, all) => type !== all[i - 1]);
    expect(types.slice(0, 6)).toEqual(["turn_start", "request_start", "thinking_delta", "usage", "tool_call", "tool_result"]);

    // A crash mid-tool: the file ends with the third assistant message, its tool_use unanswered.
    const file = sessionFile(ws, "k");
    const lines = (await readFile(file, "utf8")).split("\n").filter(Boolean);
    const assistants = lines.flatMap((line, i) => (/"role":"assistant"/.test(line) ? [i] : []));
    await writeFile(file, lines.slice(0, assistants[2]! + 1).join("\n") + "\n");
    const afterCrash = await runAgentTurn("k", "go on from where you were", THINKER, turnOptions(m, ws));
    expect(afterCrash.stopReason).toBe("end_turn");

    // Compaction with the kept tail holding signed thinking, mid-turn and between turns.
    let compactions = 0;
    const onEvent = (e: AgentEvent): void => {
      if (e.type === "compaction") compactions++;
    };
    const compacted = await runAgentTurn("k", "once more " + "pad ".repeat(400), THINKER, turnOptions(m, ws, [], { compactAt: 1_500, onEvent }));
    expect(compacted.stopReason).toBe("end_turn");
    expect(compactions).toBeGreaterThan(0);
    // After the compaction, the tool loop went on from the summary with each assistant message still opening with its signed thinking.
    const afterSummary = m.requests.filter((r) => /SUMMARY: five rounds/.test(JSON.stringify(r.body.messages?.[0])) && round(r) > 0);
    expect(afterSummary.length).toBeGreaterThan(0);
    for (const req of afterSummary) {
      const assistant = req.body.messages!.at(-2)!;
      expect(Array.isArray(assistant.content) && assistant.content[0]).toMatchObject({ type: "thinking", signature: expect.any(String) });
    }
    expect(m.rejected).toEqual([]);
  });

  it("turns thinking off and on again between turns of one session without an invalid request", async () => {
    const m = await scripted([{ reply: fiveRounds }]);
    const ws = await tempWorkspace();
    await runAgentTurn("k", "first", THINKER, turnOptions(m, ws));
    const off = await runAgentTurn("k", "second", THINKER, turnOptions(m, ws, [], { thinking: "off" }));
    const adaptive = await runAgentTurn("k", "third", THINKER, turnOptions(m, ws, [], { thinking: "adaptive" }));
    const again = await runAgentTurn("k", "fourth", THINKER, turnOptions(m, ws));
    for (const result of [off, adaptive, again]) expect(result.stopReason).toBe("end_turn");
    const settings = m.requests.map((r) => (r.body.thinking as { type: string } | undefined)?.type);
    expect(new Set(settings.slice(0, 6))).toEqual(new Set(["enabled"]));
    expect(new Set(settings.slice(6, 12))).toEqual(new Set(["disabled"]));
    expect(new Set(settings.slice(12, 18))).toEqual(new Set(["adaptive"]));
    // The turns after the first sent its signed thinking back in their history, whatever their own setting.
    for (const req of m.requests.slice(6)) expect(JSON.stringify(req.body.messages)).toContain('"type":"thinking"');
  });

  it("emits thinking deltas before the text, and stores thinking blocks exactly as received, signature included", async () => {
    const m = await scripted([{ reply: { thinking: "Let me weigh both options.", text: "Take the train." } }]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "train or bus?", THINKER, turnOptions(m, ws, events));
    const thinkingText = events.flatMap((e) => (e.type === "thinking_delta" ? [e.text] : [])).join("");
    expect(thinkingText).toBe("Let me weigh both options.");
    const order = eventTypes(events).filter((t) => t === "thinking_delta" || t === "text_delta");
    expect(order[0]).toBe("thinking_delta");
    expect(order.at(-1)).toBe("text_delta");
    const records = await new SessionStore(`${ws}/sessions`).show("k", { all: true });
    const answer = records.find((r) => r.type === "message" && r.message.role === "assistant");
    const block = answer?.type === "message" && Array.isArray(answer.message.content) ? answer.message.content[0] : undefined;
    expect(block).toMatchObject({ type: "thinking", thinking: "Let me weigh both options." });
    expect((block as { signature?: string }).signature).toMatch(/.{16,}/);
  });
});

describe("web research in one turn", () => {
  it("runs a search, a pause_turn, a fetch and a tool call with thinking on, sends the paused message back whole, stores it once and prices the search", async () => {
    const m = await scripted([
      { match: { toolResult: { name: "upper" } }, reply: { thinking: "enough", text: "Node 20 reached end of life in April 2026." } },
      {
        match: (req) => req.body.messages?.at(-1)?.role === "assistant",
        reply: {
          serverTools: [{ fetch: "https://endoflife.date/nodejs", title: "Node.js | endoflife.date", text: "Node 20: security support ended 2026-04-30." }],
          text: "Checking my notes.",
          toolUses: [{ name: "upper", input: { text: "node 20" } }],
        },
      },
      { reply: { thinking: "search first", serverTools: [{ search: "node 20 end of life", results: [{ url: "https://endoflife.date/nodejs", title: "Node.js | endoflife.date" }] }], stopReason: "pause_turn" } },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "when does node 20 end?", RESEARCHER, turnOptions(m, ws, events));
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("Node 20 reached end of life in April 2026.");
    expect(m.requests).toHaveLength(3);
    const continued = m.requests[1]!.body.messages!.at(-1)!;
    expect(continued.role).toBe("assistant");
    expect(Array.isArray(continued.content) && continued.content.map((b) => b.type)).toEqual(["thinking", "server_tool_use", "web_search_tool_result"]);
    const toolLoop = m.requests[2]!.body.messages!.at(-2)!;
    expect(Array.isArray(toolLoop.content) && toolLoop.content.map((b) => b.type)).toEqual([
      "thinking", "server_tool_use", "web_search_tool_result", "server_tool_use", "web_fetch_tool_result", "text", "tool_use",
    ]);
    const lines = events.flatMap((e) => (e.type === "tool_call" ? [`→ ${e.name}${e.server ? " (server)" : ""}`] : e.type === "tool_result" ? [`← ${e.name} ${e.content.split("\n")[0]}`] : []));
    expect(lines).toEqual(["→ web_search (server)", "← web_search 1 result", "→ web_fetch (server)", "← web_fetch fetched Node.js | endoflife.date", "→ upper", "← upper NODE 20"]);
    const records = await new SessionStore(`${ws}/sessions`).show("k", { all: true });
    const assistants = records.filter((r) => r.type === "message" && r.message.role === "assistant");
    expect(assistants).toHaveLength(2);
    const summary = summarizeUsage(records.flatMap((r) => (r.type === "message" ? [r] : [])));
    expect(summary.usage.webSearchRequests).toBe(1);
    expect(summary.usage.webFetchRequests).toBe(1);
    expect(result.usage.webSearchRequests).toBe(1);
    expect(result.costUsd).toBeGreaterThan(WEB_SEARCH_USD);
  });
});
