import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { defineTool } from "../../src/tools/define.js";
import { startScriptedModel, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions } from "../helpers/turn.js";

let model: ScriptedModel | undefined;
afterEach(async () => {
  expect(model?.rejected ?? []).toEqual([]);
  await model?.close();
  model = undefined;
});

/** Two tools that record how many of their calls were running at once. */
function probes() {
  let running = 0;
  const peak = { readOnly: 0, writer: 0 };
  const make = (name: "readOnly" | "writer") =>
    defineTool({
      name: name === "readOnly" ? "look" : "change",
      description: name,
      input: z.object({ n: z.number() }),
      readOnly: name === "readOnly",
      run: async ({ n }) => {
        running++;
        peak[name] = Math.max(peak[name], running);
        await new Promise((r) => setTimeout(r, 40));
        running--;
        return `done ${n}`;
      },
    });
  return { tools: [make("readOnly"), make("writer")], peak };
}

describe("parallel tool execution", () => {
  it("runs read-only calls of one response together and answers in request order", async () => {
    const { tools, peak } = probes();
    model = await startScriptedModel([
      { match: "go", reply: { toolUses: [1, 2, 3, 4, 5].map((n) => ({ name: "look", input: { n } })) } },
      { reply: "ok" },
    ]);
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(model, await tempWorkspace(), events, { tools }));
    expect(peak.readOnly).toBe(5);
    const results = model.requests[1]!.body.messages!.at(-1)!.content as Array<{ content: Array<{ text: string }> }>;
    expect(results.map((r) => r.content[0]!.text)).toEqual(["done 1", "done 2", "done 3", "done 4", "done 5"]);
  });

  it("runs a writing call alone, in order, between read-only batches", async () => {
    const { tools, peak } = probes();
    model = await startScriptedModel([
      {
        match: "go",
        reply: {
          toolUses: [
            { name: "look", input: { n: 1 } },
            { name: "look", input: { n: 2 } },
            { name: "change", input: { n: 3 } },
            { name: "change", input: { n: 4 } },
            { name: "look", input: { n: 5 } },
          ],
        },
      },
      { reply: "ok" },
    ]);
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(model, await tempWorkspace(), events, { tools }));
    expect(peak.writer).toBe(1);
    expect(peak.readOnly).toBe(2);
    const finished = events.flatMap((e) => (e.type === "tool_result" ? [e.content] : []));
    expect(finished.slice(2)).toEqual(["done 3", "done 4", "done 5"]);
  });
});
