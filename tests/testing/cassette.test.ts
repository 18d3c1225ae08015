// Cassettes: a real turn recorded through miniclaw's own client, replayed over HTTP with nothing changed, and a planted difference named.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { createClient } from "../../src/model/client.js";
import { recordCassette, readCassette, replay } from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define.js";
import { TEST_AGENT, scriptedModelPerTest, tempWorkspace } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const scripted = scriptedModelPerTest();

/** A tool whose description a later version may change. */
const lookup = (description = "Looks a word up.") =>
  defineTool({ name: "lookup", description, input: z.object({ word: z.string() }), access: "read", run: ({ word }) => `${word}: a word` });

/** `rounds` tool rounds then an answer per turn, recorded, in a new cassette file; resolves to the file. */
async function recorded(rounds: number, turns = 1, compactAt?: number): Promise<string> {
  const model = await scripted([
    { match: { system: /summarise an assistant's working session/ }, reply: "SUMMARY: words were looked up." },
    { match: (req) => (req.body.messages?.length ?? 0) >= 2 * rounds + 1 && JSON.stringify(req.body.messages?.at(-1)).includes("tool_result"), reply: "done after {{tool_result}}" },
    { reply: (req) => ({ toolUses: [{ name: "lookup", input: { word: `w${req.body.messages?.length ?? 0}` } }] }) },
  ]);
  const file = join(await tempDir("miniclaw-cassette-"), "turn.jsonl");
  const recorder = recordCassette(file, { secrets: ["sk-ant-the-real-key-123"] });
  const client = createClient({ env: { ANTHROPIC_API_KEY: "sk-ant-the-real-key-123", ANTHROPIC_BASE_URL: model.baseURL }, wrapFetch: recorder.wrap });
  const ws = await tempWorkspace();
  for (let t = 0; t < turns; t++) {
    recorder.turn(`question ${t} ${"padding ".repeat(20)}`, "k");
    const runtime = { workspace: ws, client, builtinTools: false, ...(compactAt !== undefined && { compactAt }) };
    const result = await runAgentTurn("k", `question ${t} ${"padding ".repeat(20)}`, TEST_AGENT, { runtime, model: "claude-test-1", tools: [lookup()], maxIterations: 50 });
    expect(result.stopReason).toBe("end_turn");
  }
  return file;
}

/** Runs the cassette's turns against a replay, with `tool` as the agent's tool; resolves to the replay's differences. */
async function replayed(file: string, tool = lookup(), tolerate: string[] = [], compactAt?: number): Promise<string[]> {
  const server = await replay(file, { tolerate, secrets: ["sk-ant-the-real-key-123"] });
  try {
    const client = createClient({ env: { ANTHROPIC_API_KEY: "sk-ant-the-real-key-123", ANTHROPIC_BASE_URL: server.baseURL }, maxRetries: 0 });
    const ws = await tempWorkspace();
    const runtime = { workspace: ws, client, builtinTools: false, ...(compactAt !== undefined && { compactAt }) };
    for (const turn of server.cassette.turns) await runAgentTurn(turn.sessionKey ?? "k", turn.text, TEST_AGENT, { runtime, model: "claude-test-1", tools: [tool], maxIterations: 50 });
    if (server.remaining() > 0) server.differences.push(`${server.remaining()} recorded requests were never made`);
    return server.differences;
  } finally {
    await server.close();
  }
}

describe("a cassette", () => {
  it("records every request and streamed response of a turn, with no credential in it", async () => {
    const file = await recorded(2);
    const text = await readFile(file, "utf8");
    expect(text).not.toContain("sk-ant-the-real-key-123");
    const cassette = readCassette(file);
    expect(cassette.turns).toHaveLength(1);
    expect(cassette.turns[0]!.exchanges).toHaveLength(3);
    expect(cassette.turns[0]!.exchanges.every((e) => "status" in e.response && e.response.body.includes("event: message_start"))).toBe(true);
  });

  it("replays a 20-round turn with no difference, over HTTP, in well under a second", async () => {
    const file = await recorded(20);
    const started = performance.now();
    expect(await replayed(file)).toEqual([]);
    const ms = performance.now() - started;
    console.log(`replay: 21 requests of a 20-round turn in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(3_000);
  });

  it("replays a 30-turn session that compacted, read back from its file, with no difference", async () => {
    const file = await recorded(1, 30, 1_500);
    const cassette = readCassette(file);
    expect(cassette.turns).toHaveLength(30);
    expect(JSON.stringify(cassette)).toContain("SUMMARY: words were looked up.");
    expect(await replayed(file, lookup(), [], 1_500)).toEqual([]);
  });

  it("names a changed tool description in the first difference, and tolerates it when told", async () => {
    const file = await recorded(1);
    const differences = await replayed(file, lookup("Looks a word up in the new dictionary."));
    expect(differences[0]).toBe('request 1: request.body.tools[0].description: recorded "Looks a word up.", now "Looks a word up in the new dictionary."');
    expect(await replayed(file, lookup("Looks a word up in the new dictionary."), ["tools"])).toEqual([]);
  });

  it("says in one line which format a cassette from a later miniclaw needs", () => {
    expect(() => readCassette('{"cassette": 2, "created": "x"}\n', "c.jsonl")).toThrow("c.jsonl needs cassette format 2; this miniclaw reads format 1: update miniclaw");
    expect(() => readCassette('{"nope": 1}\n', "c.jsonl")).toThrow('c.jsonl: not a miniclaw cassette (its first line names no "cassette" format)');
  });
});
