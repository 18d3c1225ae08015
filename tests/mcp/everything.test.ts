// The reference server-everything, declared fully, over stdio, Streamable HTTP and SSE: every tool offered and called right, resources, prompts, progress.
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { connectMcpServers, type McpHub, type McpServersConfig } from "../../src/mcp/index.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { closedPort } from "../helpers/ports.js";
import { scriptedModelPerTest, tempWorkspace, TEST_AGENT, turnOptions } from "../helpers/turn.js";

const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const scripted = scriptedModelPerTest();
const opened: Array<McpHub | ChildProcess> = [];
afterEach(async () => {
  for (const item of opened.splice(0)) "close" in item ? await item.close() : item.kill();
});

/** Each tool of server-everything, the input the model sends, and a piece of the result it must get back. */
const CALLS: Array<[tool: string, input: Record<string, unknown>, expected: RegExp]> = [
  ["echo", { message: "hi" }, /Echo: hi/],
  ["get-annotated-message", { messageType: "success", includeImage: true }, /completed successfully\n\[image\]/],
  ["get-env", {}, /PATH/],
  ["get-resource-links", { count: 2 }, /resource link: .* demo:\/\/resource\/.*read it with mcp__ev__read_resource/],
  ["get-resource-reference", { resourceType: "Text", resourceId: 1 }, /Resource 1/],
  ["get-roots-list", {}, /Current MCP Roots \(1 total\)[\s\S]*URI: file:\/\/\//],
  ["get-structured-content", { location: "Chicago" }, /temperature/],
  ["get-sum", { a: 2, b: 3 }, /5/],
  ["get-tiny-image", {}, /requested:\n\[image\]/],
  ["gzip-file-as-resource", { name: "hi.txt.gz", data: "data:text/plain;base64,aGVsbG8=", outputType: "resource" }, /application\/gzip, \d+ bytes\) saved to .*mcp-files\/ev\//],
  ["toggle-simulated-logging", {}, /Started simulated, random-leveled logging/],
  ["toggle-subscriber-updates", {}, /Started simulated resource updated notifications/],
  ["trigger-long-running-operation", { duration: 0.3, steps: 3 }, /Long running operation completed/],
  ["trigger-elicitation-request", {}, /User provided the requested information![\s\S]*Name: Ada/],
  ["trigger-url-elicitation", { url: "https://example.com/consent" }, /User completed the URL elicitation flow/],
  ["trigger-sampling-request", { prompt: "say pong", maxTokens: 50 }, /"text": "pong"/],
  ["simulate-research-query", { topic: "tea" }, /# Research Report: tea/],
  ["trigger-sampling-request-async", { prompt: "say pong", maxTokens: 50 }, /"text": "pong"/],
  ["trigger-elicitation-request-async", {}, /"action": "accept"/],
];

/** The tool results of the request's last message, by tool_use id. */
function results(req: RecordedRequest): Map<string, { text: string; isError: boolean }> {
  const last = req.body.messages?.at(-1);
  const out = new Map<string, { text: string; isError: boolean }>();
  if (!last || typeof last.content === "string") return out;
  for (const b of last.content) {
    if (b.type !== "tool_result") continue;
    const parts = typeof b.content === "string" ? [{ type: "text", text: b.content }] : (b.content ?? []);
    out.set(b.tool_use_id, { text: parts.map((p) => ("text" in p ? p.text : `[${p.type}]`)).join("\n"), isError: b.is_error === true });
  }
  return out;
}

async function hubOf(config: McpServersConfig, workspace: string): Promise<McpHub> {
  const hub = await connectMcpServers(config, { roots: [workspace], elicit: async (request) => ({ action: "accept", content: request.mode === "form" ? { name: "Ada" } : {} }) });
  opened.push(hub);
  return hub;
}

/** server-everything over HTTP (`streamableHttp` or `sse`) on a free port, ready once it says it listens. */
async function httpEverything(mode: "streamableHttp" | "sse"): Promise<string> {
  const port = await closedPort();
  const child = spawn(process.execPath, [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  opened.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => /listening|running/i.test(chunk.toString()) && resolve());
    child.once("exit", () => reject(new Error("server-everything exited")));
  });
  return mode === "sse" ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`;
}

async function callsEveryTool(config: McpServersConfig): Promise<void> {
  const workspace = await tempWorkspace();
  const hub = await hubOf(config, workspace);
  const status = hub.status()[0]!;
  expect(status.state).toBe("connected");
  const own = status.tools.filter((t) => t !== "mcp__ev__read_resource");
  expect(own).toHaveLength(19);
  expect(new Set(CALLS.map(([tool]) => `mcp__ev__${tool}`))).toEqual(new Set(own));
  const uses = CALLS.map(([tool, input], i) => ({ id: `toolu_${i}`, name: `mcp__ev__${tool}`, input }));
  const m = await scripted([
    { match: (req) => (req.body.messages?.length ?? 0) === 1 && req.body.system === undefined, reply: "pong" },
    { match: (req) => results(req).size > 0, reply: "done" },
    { match: (req) => JSON.stringify(req.body.messages).includes("say pong"), reply: "pong" },
    { reply: { toolUses: uses } },
  ]);
  const events: AgentEvent[] = [];
  const result = await runAgentTurn("k", "call them all", TEST_AGENT, turnOptions(m, workspace, events, { toolSources: [hub], permissionMode: "bypassPermissions", tools: [] }));
  expect(result.text).toBe("done");
  const answered = results(m.requests.at(-1)!);
  for (const [i, [tool, , expected]] of CALLS.entries()) {
    const answer = answered.get(`toolu_${i}`)!;
    expect({ tool, isError: answer.isError }).toEqual({ tool, isError: false });
    expect(answer.text).toMatch(expected);
  }
  expect(events.some((e) => e.type === "tool_progress" && e.name === "mcp__ev__trigger-long-running-operation")).toBe(true);
  // The two sampling requests went to the turn's model and count in its usage, as every request does.
  expect(m.requests.filter((r) => r.body.tools === undefined)).toHaveLength(2);
  expect(events.filter((e) => e.type === "usage")).toHaveLength(m.requests.length);
}

describe("server-everything, declared fully", () => {
  it("offers its 19 tools and calls each right over stdio, with progress, sampling, forms, tasks and roots", async () => {
    await callsEveryTool({ ev: { command: process.execPath, args: [EVERYTHING, "stdio"] } });
  });

  it("offers its 19 tools and calls each right over Streamable HTTP", async () => {
    await callsEveryTool({ ev: { type: "http", url: await httpEverything("streamableHttp") } });
  });

  it('connects over the older HTTP+SSE transport ("type": "sse") and calls a tool', async () => {
    const workspace = await tempWorkspace();
    const hub = await hubOf({ ev: { type: "sse", url: await httpEverything("sse") } }, workspace);
    expect(hub.status()[0]).toMatchObject({ state: "connected", transport: "sse" });
    const m = await scripted([{ match: (req) => results(req).size > 0, reply: "got {{tool_result}}" }, { reply: { toolUses: [{ name: "mcp__ev__get-sum", input: { a: 1, b: 2 } }] } }]);
    const result = await runAgentTurn("k", "sum", TEST_AGENT, turnOptions(m, workspace, [], { toolSources: [hub], permissionMode: "bypassPermissions" }));
    expect(result.text).toBe("got The sum of 1 and 2 is 3.");
  });
});
