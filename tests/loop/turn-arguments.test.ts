// The library's entry points check what they are given: one ConfigError line naming the field and the fix, before any request.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError } from "../../src/errors.js";
import { runAgentTurn, streamAgentTurn } from "../../src/loop/run-turn.js";
import { openRuntime } from "../../src/runtime/open-runtime.js";
import { defineTool } from "../../src/tools/define.js";
import type { AgentConfig } from "../../src/types.js";
import { TEST_AGENT, eventTypes, scriptedModelPerTest, tempWorkspace, turnOptions } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();

/** The one line a call is refused with: a ConfigError, never a TypeError or a request. */
async function refusal(call: () => unknown): Promise<string> {
  const error = await Promise.resolve().then(call).then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  expect(message).not.toContain("\n");
  return message;
}

describe("runAgentTurn's arguments", () => {
  it("refuses a missing agent, key or text, and an empty text, with a line saying what it wants", async () => {
    expect(await refusal(() => runAgentTurn("k", "hi", undefined as unknown as AgentConfig))).toBe(
      "runAgentTurn: agent must be an AgentConfig ({ id, name, prompt }), as loadAgents returns, got undefined",
    );
    expect(await refusal(() => runAgentTurn("", "hi", TEST_AGENT))).toMatch(/^runAgentTurn: sessionKey must be a non-empty string/);
    expect(await refusal(() => runAgentTurn("k", 42 as unknown as string, TEST_AGENT))).toBe(`runAgentTurn: userText must be a string or content blocks ([{ type: "image", ... }, { type: "text", ... }]), got number`);
    for (const empty of ["", "  \n\t"]) expect(await refusal(() => runAgentTurn("k", empty, TEST_AGENT))).toBe("runAgentTurn: userText is empty: give the message the model should answer");
  });

  it("names the option of this harness for what other harnesses call maxTurns, abortController, allowedTools and systemPrompt", async () => {
    const refused = async (options: object): Promise<string> => refusal(() => runAgentTurn("k", "hi", TEST_AGENT, options));
    expect(await refused({ maxTurns: 3 })).toMatch(/^runAgentTurn options: unknown field "maxTurns" \(did you mean "maxIterations"\?\)/);
    expect(await refused({ abortController: new AbortController() })).toMatch(/"abortController" \(pass its signal as signal\)/);
    expect(await refused({ allowedTools: ["read_file"] })).toMatch(/"allowedTools" \(list the tools in the agent's tools/);
    expect(await refused({ systemPrompt: "Be brief." })).toMatch(/"systemPrompt" \(the agent's prompt is the system prompt: pass \{ \.\.\.agent, prompt \}\)/);
    expect(await refused({ cwd: "/tmp" })).toMatch(/"cwd" \(a runtime option: pass runtime: \{ cwd \} or open one with openRuntime\)/);
    expect(await refused({ maxIteration: 3 })).toMatch(/"maxIteration" \(did you mean "maxIterations"\?\)/);
  });

  it("refuses a thinking budget below the API's minimum and an effort it does not know, before any request", async () => {
    const model = await scripted([{ reply: "unused" }]);
    const options = (extra: object) => turnOptions(model, "/nowhere", [], extra);
    expect(await refusal(() => runAgentTurn("k", "hi", TEST_AGENT, options({ thinking: 100 })))).toBe(
      "runAgentTurn options: thinking: a thinking budget must be at least 1024 tokens, got 100",
    );
    expect(await refusal(() => runAgentTurn("k", "hi", TEST_AGENT, options({ effort: "ultra" })))).toBe(
      'runAgentTurn options: effort: must be one of low, medium, high, xhigh, max, got "ultra"',
    );
    expect(model.requests).toEqual([]);
  });

  it("refuses a tool that is not one defineTool made, and a tool whose input is a JSON Schema", async () => {
    const raw = { name: "lookup", description: "Looks up.", input_schema: { type: "object", properties: {} } };
    expect(await refusal(() => runAgentTurn("k", "hi", TEST_AGENT, { tools: [raw as never] }))).toMatch(/^runAgentTurn options: tools\.0: must be tools made with defineTool/);
    const defined = () => defineTool({ name: "lookup", description: "Looks up.", input: { type: "object", properties: {} } as never, run: () => "x" });
    expect(await refusal(defined)).toBe("defineTool(lookup): input must be a zod object schema, z.object({...}), not a JSON Schema object");
    expect(await refusal(() => defineTool({ name: "look up", description: "x", input: z.object({}), run: () => "x" }))).toMatch(/^defineTool\(look up\): name must match/);
  });

  it("refuses unknown runtime options and a bad sandbox setting the same way", async () => {
    expect(await refusal(() => openRuntime({ mcpServers: {} } as never))).toMatch(/"mcpServers" \(connect them with connectMcpServers from miniclaw\/mcp/);
    expect(await refusal(() => openRuntime({ database: "postgres://x" } as never))).toMatch(/"database" \(open it with openPostgres from miniclaw\/postgres/);
    expect(await refusal(() => openRuntime({ env: { ANTHROPIC_API_KEY: "x" }, shell: { sandbox: "sometimes" } } as never))).toBe('sandbox: must be one of off, on, auto, got "sometimes"');
  });
});

describe("streamAgentTurn", () => {
  it("yields the turn's events in order, then its result, and stops there", async () => {
    const model = await scripted([{ match: { toolResult: {} }, reply: "HELLO it says" }, { reply: { toolUses: [{ name: "upper", input: { text: "hello" } }] } }]);
    const seen: string[] = [];
    let result: unknown;
    for await (const message of streamAgentTurn("k", "shout", TEST_AGENT, turnOptions(model, await tempWorkspace()))) {
      if (message.type === "result") result = message.result;
      else seen.push(message.type);
    }
    expect(eventTypes(seen.map((type) => ({ type }) as never))).toEqual(["turn_start", "request_start", "usage", "tool_call", "tool_result", "request_start", "text_delta", "usage", "turn_end"]);
    expect(result).toMatchObject({ text: "HELLO it says", stopReason: "end_turn", iterations: 2 });
  });

  it("ends with the result when a tool still reports after an interrupt and the reader is slower than the turn", async () => {
    const model = await scripted([{ reply: { toolUses: [{ name: "slow", input: {} }] } }]);
    const slow = defineTool({
      name: "slow",
      description: "Reports once more after it is interrupted.",
      input: z.object({}),
      access: "read",
      run: (_input, { signal, emit, toolUseId }) =>
        new Promise<string>((resolve) => {
          signal.addEventListener("abort", () => setTimeout(() => (emit({ type: "tool_progress", id: toolUseId, name: "slow", progress: 1 }), resolve("late")), 40));
          setTimeout(() => controller.abort(), 20);
        }),
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const options = { ...turnOptions(model, await tempWorkspace()), tools: [slow], signal: controller.signal };
    for await (const message of streamAgentTurn("k", "go", TEST_AGENT, options)) {
      seen.push(message.type === "result" ? `result:${message.result.stopReason}` : message.type);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(seen).toEqual(["turn_start", "request_start", "usage", "tool_call", "tool_result", "turn_end", "result:aborted"]);
  });

  it("interrupts the turn when the loop is left early, leaving the session valid", async () => {
    const model = await scripted([{ reply: { toolUses: [{ name: "upper", input: { text: "a" } }] } }]);
    const ws = await tempWorkspace();
    for await (const message of streamAgentTurn("k", "go", TEST_AGENT, turnOptions(model, ws))) if (message.type === "tool_call") break;
    const again = await scripted([{ reply: "fine" }]);
    expect((await runAgentTurn("k", "again", TEST_AGENT, turnOptions(again, ws))).text).toBe("fine");
  });
});
