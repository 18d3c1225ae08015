// The loop on PostgreSQL: compaction, repair and reloads work unchanged on the database backend.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { PgSessionStore } from "../../src/postgres/index.js";
import { startScriptedModel, validateRequest, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { databaseUnavailable, openTestDatabase, type TestDatabase } from "../helpers/pg.js";
import { TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";

const unavailable = await databaseUnavailable();
const isSummaryRequest = (body: { system?: unknown }): boolean => /summarise an assistant/.test(JSON.stringify(body.system ?? ""));

describe.skipIf(unavailable !== undefined)("the loop with sessions on PostgreSQL", () => {
  let opened: TestDatabase;
  let model: ScriptedModel;
  beforeEach(async () => {
    opened = await openTestDatabase();
    model = await startScriptedModel([
      { match: { system: /summarise an assistant's working session/ }, reply: "SUMMARY: the user asked many questions." },
      { match: { toolResult: { content: /^STEP-1/ } }, reply: { text: "answer {{tool_result}} " + "words ".repeat(50) } },
      { match: /question/, reply: { toolUses: [{ name: "upper", input: { text: "step-1 {{user_text}}" } }] } },
    ]);
  });
  afterEach(async () => {
    await model.close();
    await opened.close();
  });

  it("compacts on a PostgreSQL store, keeps every old record, and reloads exactly what the model was sent", async () => {
    const ws = await tempWorkspace();
    const events: AgentEvent[] = [];
    const store = new PgSessionStore(opened.database);
    for (let i = 0; i < 10; i++) {
      const result = await runAgentTurn("k", `question ${i} ${"padding ".repeat(40)}`, TEST_AGENT, turnOptions(model, ws, events, { compactAt: 2_500, store }));
      expect(result.stopReason, result.error).toBe("end_turn");
    }
    expect(events.filter((e) => e.type === "compaction").length).toBeGreaterThan(0);
    expect(model.rejected).toEqual([]);
    for (const request of model.requests) expect(validateRequest(request.body)).toBeNull();
    const all = await store.show("k", { all: true });
    expect(JSON.stringify(all)).toMatch(/question 0 /);
    const loaded = await store.load("k");
    expect(all.filter((r) => r.type === "message").length).toBeGreaterThan(loaded.records.length);
    const last = model.requests.filter((r) => !isSummaryRequest(r.body)).at(-1)!;
    expect(JSON.stringify(last.body.messages)).toMatch(/SUMMARY: the user asked many questions/);
    // The request marks its cache breakpoints; everything else is what the database gives back.
    const withoutBreakpoints = JSON.parse(JSON.stringify(last.body.messages, (key, value: unknown) => (key === "cache_control" ? undefined : value)));
    expect(loaded.messages.slice(0, -1)).toEqual(withoutBreakpoints);
  }, 30_000);
});
