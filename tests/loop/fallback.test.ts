import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { forAnotherModel } from "../../src/loop/turn-setup.js";
import { createClient } from "../../src/model/client.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { eventTypes, scriptedModelPerTest, sessionLines, TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();
const on = (model: string) => (req: RecordedRequest) => req.body.model === model;

describe("fallback model", () => {
  it("goes on with the fallback when the primary stays overloaded, leaving out the thinking it cannot verify", async () => {
    const m = await scripted([
      { match: (req) => on("claude-primary")(req) && req.body.messages!.length === 1, reply: { thinking: "let me shout", toolUses: [{ name: "upper", input: { text: "hi" } }] } },
      { match: on("claude-primary"), fault: { status: 529 } },
      { match: on("claude-spare"), reply: { text: "Spare says {{tool_result}}" } },
    ]);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const client = createClient({ env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: m.baseURL }, maxRetries: 1 });
    const options = turnOptions(m, ws, events, { client, model: "claude-primary", fallbackModel: "claude-spare", thinking: "adaptive" });
    const result = await runAgentTurn("agent:main:main", "shout", TEST_AGENT, options);
    expect([result.stopReason, result.text]).toEqual(["end_turn", "Spare says HI"]);
    expect(eventTypes(events).filter((type) => type !== "thinking_delta")).toEqual(["turn_start", "request_start", "usage", "tool_call", "tool_result", "request_start", "fallback", "request_start", "text_delta", "usage", "turn_end"]);
    expect(events.find((e) => e.type === "fallback")).toMatchObject({ from: "claude-primary", to: "claude-spare", reason: expect.stringMatching(/^API error 529/) });
    const last = m.requests.at(-1)!.body;
    expect(last.thinking).toEqual({ type: "disabled" });
    expect(JSON.stringify(last.messages)).not.toMatch(/"thinking"|signature/);
    // Which model answered each response, in the session.
    const answered = (await sessionLines(ws, "agent#main#main.jsonl")).filter((r) => (r.message as { role?: string } | undefined)?.role === "assistant").map((r) => r.model);
    expect(answered).toEqual(["claude-primary", "claude-spare"]);
  });

  it("ends the turn with the error when there is no fallback, or the error is the request's", async () => {
    const m = await scripted([{ match: on("claude-primary"), fault: { status: 400, message: "bad request" } }, { reply: "never" }]);
    const client = createClient({ env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: m.baseURL }, maxRetries: 0 });
    const result = await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { client, model: "claude-primary", fallbackModel: "claude-spare" }));
    expect([result.stopReason, m.requests.length]).toEqual(["error", 1]);
    const overloaded = await scripted([{ match: on("claude-primary"), fault: { status: 529 } }, { reply: "never" }]);
    const alone = createClient({ env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: overloaded.baseURL }, maxRetries: 0 });
    const without = await runAgentTurn("k", "hi", TEST_AGENT, turnOptions(overloaded, await tempWorkspace(), [], { client: alone, model: "claude-primary" }));
    expect([without.stopReason, overloaded.requests.map((r) => r.body.model)]).toEqual(["error", ["claude-primary"]]);
  });

  it("leaves out thinking, server tool blocks and citations for another model, and keeps the rest as it is", () => {
    const user = { role: "user" as const, content: "hi" };
    const assistant = {
      role: "assistant" as const,
      content: [
        { type: "thinking" as const, thinking: "t", signature: "s" },
        { type: "server_tool_use" as const, id: "srvtoolu_1", name: "web_search" as const, input: { query: "q" } },
        { type: "web_search_tool_result" as const, tool_use_id: "srvtoolu_1", content: [] },
        { type: "text" as const, text: "cited", citations: [{ type: "web_search_result_location" as const, url: "u", title: "t", encrypted_index: "e", cited_text: "c" }] },
        { type: "tool_use" as const, id: "toolu_1", name: "upper", input: {} },
      ],
    };
    expect(forAnotherModel([user, assistant])).toEqual([user, { role: "assistant", content: [{ type: "text", text: "cited" }, assistant.content[4]] }]);
  });
});
