// Hostile and malformed tool calls from the model: each answered (is_error where invalid), the loop goes on or stops
// at its limits, and every request the scripted model receives is valid.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { defineTool } from "../../src/tools/define.js";
import { MAX_TOOL_RESULT_CHARS } from "../../src/tools/dispatch.js";
import { startScriptedModel, type Reply, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import type { TurnOptions } from "../../src/loop/turn-options.js";
import type { AgentEvent } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions, upperTool } from "../helpers/turn.js";
import { auditSession } from "./session-audit.js";

const KEY = "agent:main:hostile";
let inputsTried = 0;
let model: ScriptedModel | undefined;

afterEach(async () => {
  await model?.close();
  model = undefined;
});
afterAll(() => console.info(`[reliability] hostile tool inputs tried: ${inputsTried}`));

/** Echoes how much input it got; stands in for any extension tool that takes big text. */
const sizeTool = defineTool({
  name: "measure",
  description: "Reports the length of a text.",
  input: z.object({ text: z.string() }),
  readOnly: true,
  run: ({ text }) => `got ${text.length} characters`,
});

type ToolResultEvent = Extract<AgentEvent, { type: "tool_result" }>;

/**
 * Runs "go" (answered by `first`), then checks the session (`sameIdsTwice`: the model
 * itself reused a tool_use id, which only the API's own check judges), that a next
 * turn works, and that the scripted model rejected no request.
 */
async function runHostile(
  first: Reply,
  extra: TurnOptions = {},
  rules: Rule[] = [],
  sameIdsTwice = false,
): Promise<{ results: ToolResultEvent[]; stop: string; workspace: string }> {
  model = await startScriptedModel([
    { match: "go", times: 1, reply: first },
    ...rules,
    { match: { toolResult: {} }, reply: "seen" },
    { reply: "answer to {{user_text}}" },
  ]);
  const workspace = await tempWorkspace();
  await writeFile(join(workspace, "a.txt"), "alpha\nbeta\n");
  const events: AgentEvent[] = [];
  const options = turnOptions(model, workspace, events, { builtinTools: true, tools: [upperTool(), sizeTool], ...extra });
  const result = await runAgentTurn(KEY, "go", TEST_AGENT, options);
  const audit = await auditSession(join(workspace, "sessions"), KEY);
  if (!sameIdsTwice) expect(audit.problems).toEqual([]);
  expect(audit.requestError).toBeNull();
  expect(audit.lost).toEqual([]);
  expect(model.rejected.map((r) => r.error)).toEqual([]);
  const next = await runAgentTurn(KEY, "again", TEST_AGENT, { ...options, onEvent: () => {} });
  // After a compaction the summary travels in front of the user's text.
  expect(next.text).toMatch(/^answer to (The conversation before this point was compacted[\s\S]*)?again$/);
  expect(model.rejected.map((r) => r.error)).toEqual([]);
  return { results: events.filter((e): e is ToolResultEvent => e.type === "tool_result"), stop: result.stopReason, workspace };
}

interface InputCase {
  tool: string;
  input: unknown;
  /** `true`: an is_error result matching the regexp; `false`: a normal result matching it. */
  error: boolean;
  says: RegExp;
}

/**
 * 1 MiB: more than the whole context window (200k tokens of 4 characters: 800k), so the session must cope with a
 * tool input it can never send whole again; a bigger one for an extension tool is streamed below.
 */
const BIG = 1024 * 1024;
const INPUT_CASES: InputCase[] = [
  { tool: "read_file", input: { path: 42 }, error: true, says: /Invalid input for read_file: path/ },
  { tool: "read_file", input: {}, error: true, says: /Invalid input for read_file: path/ },
  { tool: "read_file", input: { path: "" }, error: true, says: /Invalid input for read_file: path/ },
  { tool: "read_file", input: { path: "a.txt", offset: "ten" }, error: true, says: /offset/ },
  { tool: "read_file", input: { path: "a.txt", offset: -3 }, error: true, says: /offset/ },
  { tool: "read_file", input: { path: "a.txt", limit: 1e308 }, error: true, says: /limit/ },
  { tool: "read_file", input: { path: "a.txt", extra: { deeply: [1, [2, [3]]] } }, error: false, says: /alpha/ },
  { tool: "read_file", input: { path: "a\u0000.txt" }, error: true, says: /./ },
  { tool: "read_file", input: { path: "\u202Ea.txt\u0301" }, error: true, says: /does not exist/ },
  { tool: "write_file", input: { path: "b.txt" }, error: true, says: /Invalid input for write_file: content/ },
  { tool: "write_file", input: { path: "b.txt", content: 123 }, error: true, says: /content/ },
  { tool: "write_file", input: { path: "nul.bin", content: "a\u0000b\u0000" }, error: false, says: /Wrote 4 bytes/ },
  { tool: "write_file", input: { path: "ｕｎｉ/🎉\u200d\u0301.txt", content: "\uD83D\uDE00 ok" }, error: false, says: /Wrote/ },
  { tool: "write_file", input: { path: "big.txt", content: "y".repeat(BIG) }, error: false, says: new RegExp(`Wrote ${BIG} bytes`) },
  { tool: "edit_file", input: { path: "a.txt", old_string: "", new_string: "x" }, error: true, says: /./ },
  { tool: "edit_file", input: { path: "a.txt", old_string: "alpha" }, error: true, says: /new_string/ },
  { tool: "run_command", input: { command: "" }, error: true, says: /Invalid input for run_command: command/ },
  { tool: "run_command", input: { command: ["ls", "-la"] }, error: true, says: /command/ },
  { tool: "run_command", input: { command: "echo a\u0000b" }, error: true, says: /./ },
  { tool: "run_command", input: { command: "x".repeat(200_000) }, error: true, says: /./ },
  { tool: "save_memory", input: { key: "", content: "x" }, error: true, says: /key/ },
  { tool: "save_memory", input: { key: "k", content: { nested: true } }, error: true, says: /content/ },
  { tool: "save_memory", input: { key: "k".repeat(500), content: "x" }, error: true, says: /key/ },
  { tool: "save_memory", input: { key: "\u0000\u0007 bell", content: "x" }, error: false, says: /Saved memory note/ },
  { tool: "memory_search", input: { query: null }, error: true, says: /query/ },
  { tool: "memory_search", input: { query: "\uD800 lone surrogate" }, error: false, says: /No memory notes matched/ },
  { tool: "load_skill", input: { name: "../../../etc/passwd" }, error: true, says: /Unknown skill/ },
  { tool: "measure", input: { text: "\u0000".repeat(1000) + "\uFEFF\uFFFF\u{10FFFF}" }, error: false, says: /got 1004 characters/ },
  { tool: "rm_rf_everything", input: { path: "/" }, error: true, says: /Unknown tool "rm_rf_everything". Available tools: .*read_file/ },
  { tool: "💣\u0000", input: {}, error: true, says: /Unknown tool/ },
  { tool: "", input: {}, error: true, says: /Unknown tool ""/ },
];

describe("hostile tool inputs from the model", () => {
  it.each(INPUT_CASES.map((c, i) => ({ ...c, i, label: `${c.tool.slice(0, 20)} ${JSON.stringify(c.input).slice(0, 60)}` })))(
    "$i: $label is answered clearly and the next turn works",
    async (c) => {
      inputsTried++;
      const { results } = await runHostile({ toolUses: [{ name: c.tool, input: c.input }] });
      expect(results).toHaveLength(1);
      expect(results[0]!.isError, results[0]!.content.slice(0, 300)).toBe(c.error);
      expect(results[0]!.content).toMatch(c.says);
      if (c.error) expect(results[0]!.content.length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS + 200);
    },
    20_000,
  );

  // BUG (FINDINGS.md #3): the loop stores and re-sends a tool_use whose input is not an object; every later
  // request of the session is then invalid ("input: Input should be a valid dictionary"), so the session is bricked.
  it.each([
    { label: "a string", input: "just a string" },
    { label: "an array", input: [1, 2, 3] },
    { label: "null", input: null },
  ])("answers a tool_use whose input is $label (not an object) and sends only valid requests", async ({ input }) => {
    inputsTried++;
    const { results } = await runHostile({ content: [{ type: "tool_use", id: "toolu_notobject", name: "read_file", input }] });
    expect(results.map((r) => r.isError)).toEqual([true]);
    expect(results[0]!.content).toMatch(/Invalid input for read_file/);
  });
});

describe("hostile responses from the model", () => {
  it("answers hundreds of tool calls in one response, valid and invalid, in order, and goes on", async () => {
    const calls = [
      ...Array.from({ length: 300 }, (_, i) => ({ name: "upper", input: { text: `item ${i}` }, id: `toolu_ok_${i}` })),
      ...Array.from({ length: 40 }, (_, i) => ({ name: "upper", input: { text: i }, id: `toolu_bad_${i}` })),
      ...Array.from({ length: 40 }, (_, i) => ({ name: `nope_${i}`, input: {}, id: `toolu_unknown_${i}` })),
    ];
    inputsTried += calls.length;
    const { results, stop } = await runHostile({ toolUses: calls });
    expect(stop).toBe("end_turn");
    expect(results.map((r) => r.id).sort()).toEqual(calls.map((c) => c.id).sort());
    const sent = model!.requests[1]!.body.messages!.at(-1)!.content as Array<{ tool_use_id: string; is_error?: boolean }>;
    expect(sent.map((b) => b.tool_use_id)).toEqual(calls.map((c) => c.id));
    expect(sent.map((b) => b.is_error === true)).toEqual(calls.map((c) => !c.id.startsWith("toolu_ok_")));
  });

  it("stops with max_iterations when the model never stops calling tools, leaving a valid session", async () => {
    inputsTried++;
    let n = 0;
    const { stop } = await runHostile(
      { toolUses: [{ name: "upper", input: { text: "start" } }] },
      { maxIterations: 6 },
      [{ match: { toolResult: { name: "upper" } }, reply: () => ({ toolUses: [{ name: "upper", input: { text: `again ${n++}` } }] }) }],
    );
    expect(stop).toBe("max_iterations");
  });

  it("stops with repeated_tool_call when the model repeats one call, leaving a valid session", async () => {
    inputsTried++;
    const { stop, results } = await runHostile({ toolUses: [{ name: "upper", input: { text: "same" } }] }, {}, [
      { match: { toolResult: { name: "upper" } }, reply: { toolUses: [{ name: "upper", input: { text: "same" } }] } },
    ]);
    expect(stop).toBe("repeated_tool_call");
    expect(results.at(-1)!.isError).toBe(true);
  });

  it("handles tool_use blocks under stop reason end_turn (never answered by the loop)", async () => {
    inputsTried++;
    const { stop } = await runHostile({ toolUses: [{ name: "upper", input: { text: "x" } }], stopReason: "end_turn" });
    expect(stop).toBe("end_turn");
  });

  // BUG (FINDINGS.md #2): run-turn.ts answers "no tool calls" with an empty user message ({"role":"user","content":[]}),
  // appends it to the session, and sends a second request ending with the assistant's own text.
  it("handles stop reason tool_use with no tool_use block", async () => {
    inputsTried++;
    const { stop } = await runHostile({ text: "I will call a tool", stopReason: "tool_use" });
    expect(stop).toBe("end_turn");
  });

  it("handles a response of only whitespace text", async () => {
    inputsTried++;
    const { stop } = await runHostile({ content: [{ type: "text", text: " \n\t " }] });
    expect(stop).toBe("end_turn");
  });

  // BUG (FINDINGS.md #5, in the scripted model): src/testing/sse.ts builds the events with
  // `events.push(...blockEvents(...))`, which overflows the stack past ~100k deltas (about 1.6 MB of text; on Node 20
  // a spread of more than about 128k arguments throws). 2.5 MiB is 164k deltas of 16 characters: past that limit
  // with a margin, and at the same time the hostile input case of megabytes given to an extension tool.
  it("the scripted model can stream a 2.5 MiB tool input, given whole to the tool", async () => {
    inputsTried++;
    const size = 2.5 * 1024 * 1024;
    const { results } = await runHostile({ toolUses: [{ name: "measure", input: { text: "q".repeat(size) } }] });
    expect(results.map((r) => [r.isError, r.content])).toEqual([[false, `got ${size} characters`]]);
  });

  it("handles a reply whose text is megabytes with NUL bytes and odd unicode", async () => {
    inputsTried++;
    const { stop } = await runHostile({ text: `\u0000\uFEFF${"é\u0301".repeat(400_000)}\u{1F600}` });
    expect(stop).toBe("end_turn");
  });

  // The real API never repeats an id; a broken proxy or hostile server might. Each id must still get one result.
  // BUG (FINDINGS.md #4): both calls are answered with the same tool_use_id; the next request is rejected
  // ("each tool_use must have a single result") and so is every later one of the session.
  it("answers two tool_use blocks that share one id with a valid next request", async () => {
    inputsTried++;
    const { results } = await runHostile({
      content: [
        { type: "tool_use", id: "toolu_dup", name: "upper", input: { text: "one" } },
        { type: "tool_use", id: "toolu_dup", name: "upper", input: { text: "two" } },
      ],
    });
    expect(results.length).toBeGreaterThanOrEqual(1);
  });

  it("answers a tool_use id reused from an earlier response with a valid next request", async () => {
    inputsTried++;
    await runHostile({ content: [{ type: "tool_use", id: "toolu_same", name: "upper", input: { text: "one" } }] }, {}, [
      { match: { toolResult: { content: "ONE" } }, times: 1, reply: { content: [{ type: "tool_use", id: "toolu_same", name: "upper", input: { text: "two" } }] } },
    ], true);
  });
});
