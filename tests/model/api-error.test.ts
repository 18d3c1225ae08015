// A client the caller built from another copy of the SDK (here its CommonJS build, whose classes are not the ES module's):
// the loop reads its errors as well as those of its own client.
import { createRequire } from "node:module";
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { startScriptedModel, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentConfig, AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";
import { closedPort } from "../helpers/ports.js";

const OtherAnthropic = (createRequire(import.meta.url)("@anthropic-ai/sdk") as { default: typeof Anthropic }).default;

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** Turn options whose client is the other copy's, without the SDK's retries. */
function otherCopyOptions(m: ScriptedModel, ws: string, events: AgentEvent[] = [], baseURL = m.baseURL): Parameters<typeof runAgentTurn>[3] {
  return turnOptions(m, ws, events, { client: new OtherAnthropic({ apiKey: "test", baseURL, maxRetries: 0 }) as unknown as Anthropic });
}

describe("a client from another copy of the SDK", () => {
  it("is another copy: its error classes are not this one's", () => {
    expect(OtherAnthropic.APIError).not.toBe(Anthropic.APIError);
  });

  it("ends a failed request with the status and the API's own words", async () => {
    model = await startScriptedModel([{ fault: { status: 500, message: "the shard is down" } }]);
    const result = await runAgentTurn("k", "hi", TEST_AGENT, otherCopyOptions(model, await tempWorkspace()));
    expect({ stop: result.stopReason, status: result.errorStatus }).toEqual({ stop: "error", status: 500 });
    expect(result.error).toBe("API error 500 (api_error) the shard is down");
  });

  it("names the address a refused connection tried", async () => {
    model = await startScriptedModel([{ reply: "unused" }]);
    const closed = await closedPort();
    const result = await runAgentTurn("k", "hi", TEST_AGENT, otherCopyOptions(model, await tempWorkspace(), [], `http://127.0.0.1:${closed}`));
    expect(result.stopReason).toBe("error");
    expect(result.error).toBe(`Connection error: connect ECONNREFUSED 127.0.0.1:${closed}`);
  });

  it("describes an error event in the middle of a stream (no status, a body) by its type and message", async () => {
    model = await startScriptedModel([{ fault: { sseError: "overloaded_error", afterEvents: 2, message: "Overloaded" } }]);
    const events: AgentEvent[] = [];
    const result = await runAgentTurn("k", "hi", TEST_AGENT, otherCopyOptions(model, await tempWorkspace(), events));
    expect(result.stopReason).toBe("error");
    expect(result.error).toBe("API error (overloaded_error) Overloaded");
    expect(events.filter((e) => e.type === "retry").map((e) => (e as { reason: string }).reason)).toEqual(Array(3).fill("API error (overloaded_error) Overloaded"));
  });

  it("compacts and retries after a 'prompt is too long' 400", async () => {
    const rules: Rule[] = [
      { match: { system: /summarise an assistant's working session/ }, reply: "SUMMARY of the talk" },
      { match: /question 2/, times: 1, fault: { status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum" } },
      { reply: "an answer" },
    ];
    model = await startScriptedModel(rules);
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    for (const question of ["question 1", "question 2"]) {
      const result = await runAgentTurn("k", question, TEST_AGENT, otherCopyOptions(model, ws, events));
      expect({ stop: result.stopReason, text: result.text }).toEqual({ stop: "end_turn", text: "an answer" });
    }
    expect(events.filter((e) => e.type === "compaction")).toHaveLength(1);
  });

  it("names the agent and how to turn web off when the provider refuses the server tools", async () => {
    model = await startScriptedModel([{ reply: "unused" }], { serverTools: false });
    const web: AgentConfig = { ...TEST_AGENT, id: "researcher", web: { search: { maxUses: 3 } } };
    const result = await runAgentTurn("k", "search something", web, otherCopyOptions(model, await tempWorkspace()));
    expect({ stop: result.stopReason, status: result.errorStatus }).toEqual({ stop: "error", status: 400 });
    expect(result.error).toContain('agent "researcher" offers the web server tools');
  });
});
