// What a server asks of miniclaw during a call, with nobody to answer (run, cron, the library by default): forms declined and the turn told why, sampling refused by the gate; resources read, prompts rendered, an oversized answer ending one call.
import { McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { connectMcpServers, type McpHub, type McpServersConfig } from "../../src/mcp/index.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import type { AgentEvent, ApprovalDecision } from "../../src/types.js";
import { fileURLToPath } from "node:url";
import { scriptedModelPerTest, tempWorkspace, TEST_AGENT, turnOptions } from "../helpers/turn.js";

const BIG_SERVER = fileURLToPath(new URL("../fixtures/mcp/big-answer-server.mjs", import.meta.url));
const scripted = scriptedModelPerTest();
const hubs: McpHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

async function hubOf(config: McpServersConfig): Promise<McpHub> {
  const hub = await connectMcpServers(config);
  hubs.push(hub);
  return hub;
}

function resultText(req: RecordedRequest): { text: string; isError: boolean } {
  const last = req.body.messages?.at(-1);
  const block = typeof last?.content === "string" ? undefined : last?.content.find((b) => b.type === "tool_result");
  if (!block || block.type !== "tool_result") return { text: "", isError: false };
  const text = typeof block.content === "string" ? block.content : (block.content ?? []).map((p) => ("text" in p ? p.text : `[${p.type}]`)).join("\n");
  return { text, isError: block.is_error === true };
}

/** An in-process server whose tools ask for a form and for a sampling answer, and offer a text and a binary resource and a prompt. */
function askingServer(): McpServer {
  const server = new McpServer({ name: "asker", version: "1.0.0" });
  server.registerTool("ask_name", { description: "Asks the user's name.", inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = await ctx.mcpReq.elicitInput({ mode: "form", message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
    return { content: [{ type: "text", text: `action: ${answer.action}` }] };
  });
  server.registerTool("ask_model", { description: "Asks the model.", inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = await ctx.mcpReq.requestSampling({ messages: [{ role: "user", content: { type: "text", text: "say pong" } }], maxTokens: 20 });
    return { content: [{ type: "text", text: `model said: ${JSON.stringify(answer.content)}` }] };
  });
  server.registerResource("notes", "memo://notes", { mimeType: "text/plain" }, async () => ({ contents: [{ uri: "memo://notes", text: "buy tea" }] }));
  server.registerResource("blob", "memo://blob.bin", { mimeType: "application/octet-stream" }, async () => ({ contents: [{ uri: "memo://blob.bin", mimeType: "application/octet-stream", blob: Buffer.from([1, 2, 3]).toString("base64") }] }));
  server.registerPrompt("greet", { description: "Greets.", argsSchema: z.object({ who: z.string() }) }, ({ who }) => ({ messages: [{ role: "user", content: { type: "text", text: `Say hello to ${who}.` } }] }));
  return server;
}

describe("requests of a server with nobody to answer", () => {
  it("declines a form and tells the turn why, in a warning naming the server", async () => {
    const hub = await hubOf({ asker: { type: "sdk", server: askingServer(), readOnly: ["*"] } });
    const m = await scripted([{ match: (r) => resultText(r).text !== "", reply: "ok" }, { reply: { toolUses: [{ name: "mcp__asker__ask_name", input: {} }] } }]);
    const events: AgentEvent[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), events, { toolSources: [hub] }));
    expect(resultText(m.requests[1]!)).toEqual({ text: "action: decline", isError: false });
    expect(events.filter((e) => e.type === "warning")).toEqual([{ type: "warning", message: expect.stringMatching(/^MCP server "asker" asked for input \("Your name\?"\); declined: nobody can answer here/) }]);
  });

  it("refuses sampling through the gate when nobody can approve, and runs it on the turn's model once approved", async () => {
    const hub = await hubOf({ asker: { type: "sdk", server: askingServer(), readOnly: ["*"] } });
    const rules = [
      { match: (r: RecordedRequest) => r.body.tools === undefined, reply: "pong" },
      { match: (r: RecordedRequest) => resultText(r).text !== "", reply: "ok" },
      { reply: { toolUses: [{ name: "mcp__asker__ask_model", input: {} }] } },
    ];
    const refused = await scripted(rules);
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(refused, await tempWorkspace(), [], { toolSources: [hub] }));
    expect(resultText(refused.requests.at(-1)!).text).toMatch(/declined: .*approval/i);
    expect(refused.requests.filter((r) => r.body.tools === undefined)).toHaveLength(0);
    const asked: string[] = [];
    const approver = async (request: { tool: string; reason: string }): Promise<ApprovalDecision> => (asked.push(`${request.tool}: ${request.reason}`), "allow_once");
    const allowed = await scripted(rules);
    const result = await runAgentTurn("k2", "go", TEST_AGENT, turnOptions(allowed, await tempWorkspace(), [], { toolSources: [hub], approver }));
    expect(resultText(allowed.requests.at(-1)!).text).toBe('model said: {"type":"text","text":"pong"}');
    expect(asked).toEqual(['mcp:asker:sampling: the MCP server "asker" asks the model to answer a prompt of its own (sampling), at the turn\'s cost']);
    // Three requests: the turn's two and the sampling one, all counted in the turn's usage.
    expect(allowed.requests).toHaveLength(3);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it("asks about an MCP tool saying mcp.json does not list it as read-only, not that it was declared to need approval", async () => {
    const hub = await hubOf({ asker: { type: "sdk", server: askingServer() } });
    const m = await scripted([{ match: (r) => resultText(r).text !== "", reply: "ok" }, { reply: { toolUses: [{ name: "mcp__asker__ask_name", input: {} }] } }]);
    const reasons: string[] = [];
    await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { toolSources: [hub], approver: async (r) => (reasons.push(r.reason), "deny_once") }));
    expect(reasons).toEqual(["mcp.json does not list it in the server's readOnly"]);
  });
});

describe("resources and prompts", () => {
  it("reads a text resource as text and saves a binary one to a file in the workspace, through one gated tool", async () => {
    const hub = await hubOf({ asker: { type: "sdk", server: askingServer() } });
    expect(hub.tools().find((t) => t.name === "mcp__asker__read_resource")).toMatchObject({ access: "ask" });
    const ws = await tempWorkspace();
    const m = await scripted([
      { match: (r) => /saved to/.test(resultText(r).text), reply: "done" },
      { match: (r) => resultText(r).text === "buy tea", reply: { toolUses: [{ name: "mcp__asker__read_resource", input: { uri: "memo://blob.bin" } }] } },
      { reply: { toolUses: [{ name: "mcp__asker__read_resource", input: { uri: "memo://notes" } }] } },
    ]);
    const result = await runAgentTurn("k", "read", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub], permissionMode: "bypassPermissions" }));
    expect(result.text).toBe("done");
    expect(resultText(m.requests[2]!).text).toMatch(new RegExp(`^\\[memo://blob\\.bin \\(application/octet-stream, 3 bytes\\) saved to ${ws}/mcp-files/asker/[0-9a-f]{12}-blob\\.bin\\]$`));
  });

  it("offers each prompt as a command whose words become its arguments, in order or by name", async () => {
    const hub = await hubOf({ asker: { type: "sdk", server: askingServer() } });
    const [greet] = hub.prompts();
    expect(greet?.command).toBe("/mcp__asker__greet");
    expect(await greet!.render("Ada Lovelace")).toBe("Say hello to Ada Lovelace.");
    expect(await greet!.render('who="Grace"')).toBe("Say hello to Grace.");
    await expect(greet!.render("")).rejects.toThrow("greet needs who: write who=…");
  });
});

describe("long answers", () => {
  it("ends only the call whose stdio answer is over the limit, with a clear error, and the server keeps serving", async () => {
    const hub = await hubOf({ fx: { command: process.execPath, args: [BIG_SERVER], readOnly: ["*"] } });
    const m = await scripted([
      { match: (r) => resultText(r).text === "after", reply: "survived" },
      { match: (r) => resultText(r).isError, reply: { toolUses: [{ name: "mcp__fx__echo", input: { text: "after" } }] } },
      { reply: { toolUses: [{ name: "mcp__fx__big", input: { mib: 11 } }] } },
    ]);
    const result = await runAgentTurn("k", "big", TEST_AGENT, turnOptions(m, await tempWorkspace(), [], { toolSources: [hub] }));
    expect(resultText(m.requests[1]!).text).toMatch(/the server's answer was about 11 MiB, over the 10 MiB one message may take; it was dropped/);
    expect(result.text).toBe("survived");
  });
});
