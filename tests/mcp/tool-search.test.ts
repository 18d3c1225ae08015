// Many MCP tools: past the threshold their definitions go with defer_loading and the API's tool search finds them; measured with the three reference servers.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { connectMcpServers, type McpHub, type McpServersConfig, type ToolSearchMode } from "../../src/mcp/index.js";
import type { RecordedRequest } from "../../src/testing/index.js";
import type { AgentEvent } from "../../src/types.js";
import { scriptedModelPerTest, tempWorkspace, TEST_AGENT, turnOptions } from "../helpers/turn.js";

const scripted = scriptedModelPerTest();
const hubs: McpHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

const script = (pkg: string): string => fileURLToPath(new URL(`../../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url));

/** server-everything, server-filesystem (on the workspace) and server-memory (its file in the workspace), over stdio. */
function referenceServers(workspace: string): McpServersConfig {
  return {
    everything: { command: process.execPath, args: [script("server-everything"), "stdio"] },
    filesystem: { command: process.execPath, args: [script("server-filesystem"), workspace] },
    memory: { command: process.execPath, args: [script("server-memory")], env: { MEMORY_FILE_PATH: join(workspace, "memory.jsonl") } },
  };
}

async function hubOf(config: McpServersConfig, toolSearch: ToolSearchMode, workspace: string): Promise<McpHub> {
  const hub = await connectMcpServers(config, { toolSearch, roots: [workspace] });
  hubs.push(hub);
  return hub;
}

const bytes = (req: RecordedRequest): number => Buffer.byteLength(JSON.stringify(req.body));

/** Thirty turns of one session, each a short question and answer; the requests' sizes and cache-read share. */
async function thirtyTurns(toolSearch: ToolSearchMode): Promise<{ firstRequestBytes: number; firstPromptTokens: number; cacheReadShare: number; mcpTools: number; deferred: number }> {
  const workspace = await tempWorkspace();
  const hub = await hubOf(referenceServers(workspace), toolSearch, workspace);
  const m = await scripted([{ reply: "Noted." }]);
  const events: AgentEvent[] = [];
  for (let turn = 1; turn <= 30; turn++) {
    const result = await runAgentTurn("agent:main:thirty", `Question ${turn}: what is on my list today?`, TEST_AGENT, turnOptions(m, workspace, events, { toolSources: [hub] }));
    expect(result.stopReason).toBe("end_turn");
  }
  const usage = events.flatMap((e) => (e.type === "usage" ? [e.usage] : []));
  const read = usage.reduce((sum, u) => sum + u.cacheReadTokens, 0);
  const all = usage.reduce((sum, u) => sum + u.cacheReadTokens + u.cacheWriteTokens + u.inputTokens, 0);
  const tools = (m.requests[0]!.body.tools ?? []) as Array<{ name: string; defer_loading?: boolean }>;
  const first = usage[0]!;
  return {
    firstRequestBytes: bytes(m.requests[0]!),
    firstPromptTokens: first.inputTokens + first.cacheReadTokens + first.cacheWriteTokens,
    cacheReadShare: read / all,
    mcpTools: tools.filter((t) => t.name.startsWith("mcp__")).length,
    deferred: tools.filter((t) => t.defer_loading).length,
  };
}

describe("tool search for many MCP tools", () => {
  it("with the three reference servers: defers every MCP tool past the threshold, and keeps cache reads at 90% or more over 30 turns either way", async () => {
    const plain = await thirtyTurns("never");
    const searched = await thirtyTurns("auto");
    process.stdout.write(
      `reference servers, ${plain.mcpTools} MCP tools: first request ${plain.firstRequestBytes} bytes and ${plain.firstPromptTokens} prompt tokens with every definition loaded, ` +
        `${searched.firstRequestBytes} bytes and ${searched.firstPromptTokens} prompt tokens with tool search; ` +
        `cache reads ${(plain.cacheReadShare * 100).toFixed(1)}% / ${(searched.cacheReadShare * 100).toFixed(1)}% of input tokens over 30 turns\n`,
    );
    expect(searched.deferred).toBe(searched.mcpTools);
    expect(plain.deferred).toBe(0);
    // Every definition still travels (deferred), but only the loaded ones enter the prompt.
    expect(searched.firstPromptTokens).toBeLessThan(plain.firstPromptTokens / 2);
    expect(plain.cacheReadShare).toBeGreaterThanOrEqual(0.9);
    expect(searched.cacheReadShare).toBeGreaterThanOrEqual(0.9);
  });
});

describe("a turn that searches its tools", () => {
  it("offers the tool search tool beside deferred definitions, and a deferred tool the search found is called and answered", async () => {
    const workspace = await tempWorkspace();
    const hub = await hubOf({ memory: referenceServers(workspace)["memory"]! }, "always", workspace);
    const m = await scripted([
      { match: (r) => JSON.stringify(r.body.messages).includes('"tool_result"'), reply: "found it" },
      {
        reply: {
          content: [
            { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: { query: "read graph" } },
            { type: "tool_search_tool_result", tool_use_id: "srvtoolu_1", content: { type: "tool_search_tool_search_result", tool_references: [{ type: "tool_reference", tool_name: "mcp__memory__read_graph" }] } },
            { type: "tool_use", id: "toolu_1", name: "mcp__memory__read_graph", input: {} },
          ],
        },
      },
    ]);
    const result = await runAgentTurn("k", "what do you remember?", TEST_AGENT, turnOptions(m, workspace, [], { toolSources: [hub], permissionMode: "bypassPermissions" }));
    expect(result.text).toBe("found it");
    const tools = m.requests[0]!.body.tools as Array<{ name: string; type?: string; defer_loading?: boolean; cache_control?: unknown }>;
    expect(tools.at(-1)).toMatchObject({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25", cache_control: { type: "ephemeral" } });
    expect(tools.filter((t) => t.name.startsWith("mcp__memory__")).every((t) => t.defer_loading === true)).toBe(true);
    expect(tools.find((t) => t.name === "upper")).not.toHaveProperty("defer_loading");
  });
});
