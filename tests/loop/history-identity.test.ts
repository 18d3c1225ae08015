import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildRequest } from "../../src/loop/request.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { SessionStore } from "../../src/sessions/store.js";
import type { RecordedRequest, Rule } from "../../src/testing/index.js";
import type { MessageParam } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions, scriptedModelPerTest } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();
const KEY = "agent:main:identity";
const isSummaryRequest = (body: { system?: unknown }): boolean => /summarise an assistant/.test(JSON.stringify(body.system ?? ""));

/**
 * Wraps each rule's reply so that, as every request arrives, the messages the loop sent
 * are compared with those a fresh load of the session file gives at that moment: the
 * history kept in memory must be byte-identical to the file's, or the prompt cache
 * would break at every restart.
 */
function comparingRules(workspace: string, rules: Rule[], mismatches: string[], compared: { count: number }): Rule[] {
  const store = new SessionStore(join(workspace, "sessions"));
  return rules.map((rule) => ({
    ...rule,
    reply: async (req: RecordedRequest) => {
      if (!isSummaryRequest(req.body)) {
        const loaded = await store.load(KEY, { mode: "in-turn" });
        // A continuation after pause_turn ends with the paused response, which is stored only once whole.
        const last = req.body.messages?.at(-1);
        const paused = last?.role === "assistant" && Array.isArray(last.content) ? [{ role: "assistant" as const, content: last.content.map((block) => ({ ...block, cache_control: undefined })) }] : [];
        const fromFile = buildRequest({ model: "m", maxTokens: 1, system: "", tools: [], messages: [...loaded.messages, ...(paused as MessageParam[])] }).messages;
        compared.count++;
        if (JSON.stringify(req.body.messages) !== JSON.stringify(fromFile)) {
          mismatches.push(`request ${compared.count}:\n sent ${JSON.stringify(req.body.messages)}\n file ${JSON.stringify(fromFile)}`);
        }
      }
      const reply = rule.reply!;
      return typeof reply === "function" ? reply(req) : reply;
    },
  }));
}

describe("the history a turn keeps in memory", () => {
  it("sends byte-identical requests to those rebuilt from the file: tool rounds, pause_turn, a reused id, a compaction, a crash mid-tool", async () => {
    const ws = await tempWorkspace();
    // A crash mid-tool: the last line is a tool_use whose result never reached the file.
    await mkdir(join(ws, "sessions"), { recursive: true });
    const crashed = [
      { type: "session", version: 1, key: KEY, agentId: "main", ts: 1 },
      { type: "message", id: "u1", ts: 2, message: { role: "user", content: [{ type: "text", text: "before the crash" }] } },
      { type: "message", id: "a1", ts: 3, message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_crash", name: "upper", input: { text: "x" } }] }, stopReason: "tool_use" },
    ];
    await writeFile(new SessionStore(join(ws, "sessions")).fileFor(KEY), crashed.map((r) => JSON.stringify(r)).join("\n") + "\n");

    const mismatches: string[] = [];
    const compared = { count: 0 };
    const rules: Rule[] = [
      { match: { system: /summarise an assistant's working session/ }, reply: "SUMMARY: earlier questions." },
      { match: { toolResult: { content: /^STEP-2/ } }, reply: { content: [{ type: "text", text: "   " }, { type: "text", text: "answer " + "words ".repeat(60) }] } },
      { match: { toolResult: { content: /^STEP-1/ } }, reply: { toolUses: [{ name: "upper", input: { text: "step-2" }, id: "toolu_same" }] } },
      { match: /pause/, times: 1, reply: { text: "searching", stopReason: "pause_turn" } },
      { match: /pause/, reply: { text: "found it, checking", toolUses: [{ name: "upper", input: { text: "step-1" } }] } },
      { match: /question/, reply: { toolUses: [{ name: "upper", input: { text: "step-1" }, id: "toolu_same" }] } },
    ];
    const m = await scripted(comparingRules(ws, rules, mismatches, compared));
    const prompts = ["question one " + "pad ".repeat(600), "please pause", "question two " + "pad ".repeat(600), "question three " + "pad ".repeat(600), "pause again"];
    let compactions = 0;
    for (const prompt of prompts) {
      const result = await runAgentTurn(KEY, prompt, TEST_AGENT, turnOptions(m, ws, [], { compactAt: 2_500, onEvent: (e) => { if (e.type === "compaction") compactions++; } }));
      expect(result.stopReason).toBe("end_turn");
    }
    expect(compactions).toBeGreaterThan(0);
    expect(compared.count).toBeGreaterThanOrEqual(11);
    expect(mismatches).toEqual([]);
  });
});
