// Builders for loop tests: a temp workspace, a test agent, a scripted model client and a recording event sink.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { z } from "zod";
import { createClient } from "../../src/model/client.js";
import { defineTool } from "../../src/tools/define.js";
import type { TurnOptions } from "../../src/loop/turn-options.js";
import type { RuntimeOptions } from "../../src/runtime/open-runtime.js";
import { startScriptedModel, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import type { AgentConfig, AgentEvent } from "../../src/types.js";
import { tempDir } from "./temp-dir.js";

export const TEST_AGENT: AgentConfig = { id: "main", name: "Tester", prompt: "You are a test agent." };

/** A fresh temp folder to use as the workspace. */
export async function tempWorkspace(): Promise<string> {
  return tempDir("miniclaw-test-");
}

/** A tool that upper-cases its input and counts its calls. */
export function upperTool(calls: string[] = []) {
  return defineTool({
    name: "upper",
    description: "Upper-cases a text.",
    input: z.object({ text: z.string() }),
    readOnly: true,
    run: ({ text }) => {
      calls.push(text);
      return text.toUpperCase();
    },
  });
}

/** What a test may set for one turn: the turn's own options, and those of the runtime opened for it. */
export type TestTurnOptions = Omit<TurnOptions, "runtime"> & Omit<RuntimeOptions, "tools">;

/** The names `runAgentTurn` itself takes; every other name of a test's options belongs to the runtime. */
const TURN_KEYS = new Set(["model", "fallbackModel", "maxTokens", "thinking", "effort", "toolChoice", "output", "outputRetries", "maxIterations", "maxBudgetUsd", "maxOutputTokens", "hooks", "signal", "onEvent", "tools", "approver", "permissionMode", "inbox", "cacheTtl"]);

/** Options for a turn against the scripted model, with events recorded in `events`: a runtime opened for the turn over `workspace`. */
export function turnOptions(model: ScriptedModel, workspace: string, events: AgentEvent[] = [], extra: TestTurnOptions = {}): TurnOptions {
  const runtime: RuntimeOptions = {
    workspace,
    cwd: workspace,
    // The client miniclaw builds itself, over its own transport (model/http-fetch.ts).
    client: clientFor(model),
    builtinTools: false,
    includeTime: false,
    streamRetryBaseMs: 5,
  };
  const turn: TurnOptions = { model: "claude-test-1", tools: [upperTool()], onEvent: (e) => events.push(e) };
  for (const [key, value] of Object.entries(extra)) Object.assign(TURN_KEYS.has(key) ? turn : runtime, { [key]: value });
  return { ...turn, runtime };
}

/** A client of the scripted model, as miniclaw builds one. */
export function clientFor(model: ScriptedModel) {
  return createClient({ env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: model.baseURL }, maxRetries: 2 });
}

/** The records of a session file, parsed. */
export async function sessionLines(workspace: string, file: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(join(workspace, "sessions", file), "utf8");
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Event types in order, with text deltas collapsed into one entry per run. */
export function eventTypes(events: AgentEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) if (!(e.type === "text_delta" && out[out.length - 1] === "text_delta")) out.push(e.type);
  return out;
}

/**
 * One scripted model per test: returns the function that starts it, and after each test
 * asserts that it rejected no request (every request the loop sent was valid) and closes it.
 */
export function scriptedModelPerTest(): (rules: Rule[]) => Promise<ScriptedModel> {
  let model: ScriptedModel | undefined;
  afterEach(async () => {
    expect(model?.rejected ?? []).toEqual([]);
    await model?.close();
    model = undefined;
  });
  return async (rules) => (model = await startScriptedModel(rules));
}
