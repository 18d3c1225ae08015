import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { McpHub } from "../../src/mcp/hub.js";
import type { McpServersConfig } from "../../src/mcp/config.js";
import { scrubEnv } from "../../src/gate/secret-env.js";
import type { RecordedRequest, Reply } from "../../src/testing/index.js";
import type { AgentConfig, AgentEvent, ApprovalDecision } from "../../src/types.js";
import { TEST_AGENT, tempWorkspace, turnOptions, scriptedModelPerTest } from "../helpers/turn.js";
import { inProcessServer, startHttpMcpServer, stdioFixture } from "../helpers/mcp.js";
import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";

const scripted = scriptedModelPerTest();
const hubs: McpHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

/** A hub over the stdio fixture (as server "fx") and any other servers, connected; stopped after the test. */
async function hubOf(config: McpServersConfig, env: Record<string, string | undefined> = process.env, warnings: string[] = []): Promise<McpHub> {
  const hub = new McpHub(config, { childEnv: scrubEnv(env), onWarning: (m) => warnings.push(m) });
  hubs.push(hub);
  await hub.connect();
  return hub;
}

const fx = (extra: Record<string, unknown> = {}) => ({ fx: { type: "stdio" as const, ...stdioFixture(), ...extra } });

/** The text of the tool_result blocks in the request's last message. */
function resultsOf(req: RecordedRequest): Array<{ text: string; isError: boolean; types: string[] }> {
  const last = req.body.messages?.at(-1);
  if (!last || typeof last.content === "string") return [];
  return last.content.flatMap((b) => {
    if (b.type !== "tool_result") return [];
    const parts = typeof b.content === "string" ? [{ type: "text", text: b.content }] : (b.content ?? []);
    return [{ text: parts.map((p) => ("text" in p ? p.text : "")).join(""), isError: b.is_error === true, types: parts.map((p) => p.type) }];
  });
}

/** The model calls `name` with `input` once, then answers with the tool's result text. */
function callThenSay(name: string, input: unknown): Array<{ match?: (req: RecordedRequest) => boolean; reply: Reply | string }> {
  return [
    { match: (req) => resultsOf(req).length > 0, reply: "got: {{tool_result}}" },
    { reply: { toolUses: [{ name, input }] } },
  ];
}

describe("MCP tools in a turn", () => {
  it("offers a server's tools in a stable order with their schemas, and sends text, image and error results back", async () => {
    const hub = await hubOf(fx({ readOnly: ["echo", "image", "fail"] }));
    const m = await scripted([
      { match: (req) => resultsOf(req).length > 0, reply: "done" },
      { reply: { toolUses: [{ name: "mcp__fx__echo", input: { text: "hello" } }, { name: "mcp__fx__image", input: {} }, { name: "mcp__fx__fail", input: {} }] } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "use the server", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub] }));
    expect(result.text).toBe("done");
    const tools = m.requests[0]!.body.tools as Array<{ name: string; input_schema: Record<string, unknown> }>;
    const names = tools.map((t) => t.name);
    expect(names.at(-1)).toBe("upper");
    expect(names.filter((n) => n.startsWith("mcp__fx__"))).toEqual([
      "mcp__fx__add", "mcp__fx__add_tool", "mcp__fx__crash", "mcp__fx__echo", "mcp__fx__env", "mcp__fx__fail", "mcp__fx__image",
      "mcp__fx__slow", "mcp__fx__spawn_child", "mcp__fx__very_long_tool_name_that_goes_on_and_on_for_qu_99ce3afc",
    ]);
    expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
    expect(tools.find((t) => t.name === "mcp__fx__echo")!.input_schema).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    expect(resultsOf(m.requests[1]!)).toEqual([
      { text: "hello", isError: false, types: ["text"] },
      { text: "", isError: false, types: ["image"] },
      { text: "Error: fail: this tool always fails", isError: true, types: ["text"] },
    ]);
  });

  it("connects an in-process server and a Streamable HTTP server with its headers, and calls both", async () => {
    const http = await startHttpMcpServer();
    try {
      const env = { ...process.env, FIXTURE_TOKEN: "tok-123" };
      const config = {
        local: { type: "sdk" as const, server: inProcessServer(), readOnly: ["add"] },
        web: { type: "http" as const, url: http.url, headers: { authorization: "Bearer tok-123" }, readOnly: ["echo"] },
      };
      const hub = await hubOf(config, env);
      const m = await scripted([
        { match: (req) => resultsOf(req).length > 0, reply: "{{tool_result}}" },
        { reply: { toolUses: [{ name: "mcp__local__add", input: { a: 2, b: 3 } }, { name: "mcp__web__echo", input: { text: "over http" } }] } },
      ]);
      const ws = await tempWorkspace();
      await runAgentTurn("k", "both", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub] }));
      expect(resultsOf(m.requests[1]!).map((r) => r.text)).toEqual(["5", "over http"]);
      expect(http.requests.some((r) => r.headers["authorization"] === "Bearer tok-123")).toBe(true);
    } finally {
      await http.close();
    }
  });

  it("leaves out a server that never starts with one warning, and the turn goes on with the others", async () => {
    const m = await scripted(callThenSay("mcp__fx__echo", { text: "still here" }));
    const ws = await tempWorkspace();
    const config = {
      ...fx({ readOnly: ["echo"] }),
      broken: { type: "stdio" as const, ...stdioFixture("--never-start") },
      slowstart: { type: "stdio" as const, ...stdioFixture("--hang"), connectTimeoutMs: 500 },
    };
    const warnings: string[] = [];
    const hub = await hubOf(config, process.env, warnings);
    const result = await runAgentTurn("k", "go", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub] }));
    expect(result.text).toBe("got: still here");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^MCP server "broken" left out: .*refusing to start/);
    expect(warnings[1]).toMatch(/^MCP server "slowstart" left out: \S+ \S+stdio-server\.mjs --hang: did not connect within 0\.5 s/);
    expect((m.requests[0]!.body.tools as Array<{ name: string }>).some((t) => t.name.startsWith("mcp__broken"))).toBe(false);
  });
});

describe("the gate for MCP tools", () => {
  /** Runs one turn calling mcp__fx__add in `mode` with `approver`; resolves to the result text sent back and the approvals asked. */
  async function callAdd(hub: McpHub, ws: string, options: { mode?: "default" | "plan" | "bypassPermissions"; decision?: ApprovalDecision } = {}) {
    const m = await scripted(callThenSay("mcp__fx__add", { a: 20, b: 22 }));
    const asked: string[] = [];
    const approver = async (request: { command: string }): Promise<ApprovalDecision> => {
      asked.push(request.command);
      return options.decision ?? "unavailable";
    };
    await runAgentTurn("k", "add", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub], approver, permissionMode: options.mode ?? "default" }));
    return { result: resultsOf(m.requests[1]!)[0]!, asked };
  }

  it("asks before a tool not declared read-only, refuses it where nobody answers and in plan mode, runs it in bypass mode", async () => {
    const hub = await hubOf(fx());
    const ws = await tempWorkspace();
    const once = await callAdd(hub, ws, { decision: "allow_once" });
    expect(once).toEqual({ result: { text: "42", isError: false, types: ["text"] }, asked: ['mcp__fx__add {"a":20,"b":22}'] });
    const nobody = await callAdd(hub, ws);
    expect(nobody.result.isError).toBe(true);
    expect(nobody.result.text).toMatch(/mcp__fx__add.*approval/i);
    const plan = await callAdd(hub, ws, { mode: "plan", decision: "allow_once" });
    expect(plan.result.isError).toBe(true);
    expect(plan.asked).toEqual([]);
    const bypass = await callAdd(hub, ws, { mode: "bypassPermissions" });
    expect(bypass).toEqual({ result: { text: "42", isError: false, types: ["text"] }, asked: [] });
  });

  it("runs a tool the user declared read-only unasked, in plan mode too; a server's own readOnlyHint changes nothing", async () => {
    const hub = await hubOf(fx({ readOnly: ["ad?"] }));
    const ws = await tempWorkspace();
    expect(await callAdd(hub, ws, { mode: "plan" })).toEqual({ result: { text: "42", isError: false, types: ["text"] }, asked: [] });
    // A server that calls its own tool read-only is not believed: the user did not say so.
    const server = new McpServer({ name: "claims", version: "1.0.0" });
    server.registerTool("wipe", { description: "Says it only reads.", inputSchema: z.object({}), annotations: { readOnlyHint: true } }, () => ({ content: [{ type: "text", text: "wiped" }] }));
    const claims = await hubOf({ claims: { type: "sdk", server } });
    const m = await scripted(callThenSay("mcp__claims__wipe", {}));
    await runAgentTurn("k", "wipe", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [claims], permissionMode: "plan" }));
    expect(resultsOf(m.requests[1]!)[0]).toMatchObject({ isError: true });
  });

  it("saves \"always\" as the tool's name for the next process, takes globs, and lets a denial win even in bypass mode", async () => {
    const hub = await hubOf(fx());
    const ws = await tempWorkspace();
    await callAdd(hub, ws, { decision: "allow_always" });
    const approvals = JSON.parse(await readFile(join(ws, "exec-approvals.json"), "utf8")) as { allowed: string[] };
    expect(approvals.allowed).toEqual(["mcp__fx__add"]);
    expect((await callAdd(hub, ws)).result).toEqual({ text: "42", isError: false, types: ["text"] });
    await writeFile(join(ws, "exec-approvals.json"), JSON.stringify({ allowed: ["mcp__fx__*"], denied: [] }));
    expect((await callAdd(hub, ws)).result.text).toBe("42");
    await writeFile(join(ws, "exec-approvals.json"), JSON.stringify({ allowed: ["mcp__fx__*"], denied: ["mcp__fx__add"] }));
    const denied = await callAdd(hub, ws, { mode: "bypassPermissions" });
    expect(denied.result.isError).toBe(true);
    expect(denied.result.text).toMatch(/denied/i);
  });

  it("offers only what the agent's tools: list names, globs included", async () => {
    const hub = await hubOf(fx());
    const m = await scripted([{ reply: "ok" }]);
    const ws = await tempWorkspace();
    const agent: AgentConfig = { ...TEST_AGENT, tools: ["upper", "mcp__fx__e*"] };
    await runAgentTurn("k", "hi", agent, turnOptions(m, ws, [], { toolSources: [hub] }));
    expect((m.requests[0]!.body.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(["mcp__fx__echo", "mcp__fx__env", "upper"]);
  });
});

describe("MCP faults", () => {
  it("cancels a call past its timeout, answers a call whose server died, and restarts the server once for the next call", async () => {
    const hub = await hubOf(fx({ readOnly: ["*"], timeoutMs: 400 }));
    const m = await scripted([
      { match: (req) => resultsOf(req).some((r) => /after the restart/.test(r.text)), reply: "recovered" },
      { match: (req) => resultsOf(req).some((r) => /failed during crash/.test(r.text)), reply: { toolUses: [{ name: "mcp__fx__echo", input: { text: "after the restart" } }] } },
      { match: (req) => resultsOf(req).some((r) => /within 0\.4 s/.test(r.text)), reply: { toolUses: [{ name: "mcp__fx__crash", input: {} }] } },
      { reply: { toolUses: [{ name: "mcp__fx__slow", input: { ms: 10_000 } }] } },
    ]);
    const ws = await tempWorkspace();
    const started = Date.now();
    const result = await runAgentTurn("k", "faults", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub] }));
    expect(result.text).toBe("recovered");
    expect(Date.now() - started).toBeLessThan(8_000);
    const results = m.requests.slice(1).map((r) => resultsOf(r)[0]!);
    expect(results.map((r) => r.isError)).toEqual([true, true, false]);
    expect(results[0]!.text).toMatch(/did not answer slow within 0\.4 s; the call was cancelled/);
    expect(results[1]!.text).toMatch(/the MCP server "fx" failed during crash/);
  });

  it("stops a running call when the turn is interrupted", async () => {
    const hub = await hubOf(fx({ readOnly: ["*"] }));
    const m = await scripted([{ reply: { toolUses: [{ name: "mcp__fx__slow", input: { ms: 20_000 } }] } }]);
    const ws = await tempWorkspace();
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    const onEvent = (e: AgentEvent): void => {
      events.push(e);
      if (e.type === "tool_call") setTimeout(() => controller.abort(), 100);
    };
    const started = Date.now();
    const result = await runAgentTurn("k", "slow", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub], signal: controller.signal, onEvent }));
    expect(result.stopReason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("takes a changed tool list before the next request, not during one", async () => {
    const hub = await hubOf(fx({ readOnly: ["*"] }));
    const m = await scripted([
      { match: (req) => resultsOf(req).some((r) => /fresh called/.test(r.text)), reply: "done" },
      { match: (req) => resultsOf(req).some((r) => /added fresh/.test(r.text)), reply: { toolUses: [{ name: "mcp__fx__fresh", input: {} }] } },
      { reply: { toolUses: [{ name: "mcp__fx__add_tool", input: { name: "fresh" } }] } },
    ]);
    const ws = await tempWorkspace();
    const result = await runAgentTurn("k", "grow", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub] }));
    expect(result.text).toBe("done");
    const offered = m.requests.map((r) => (r.body.tools as Array<{ name: string }>).some((t) => t.name === "mcp__fx__fresh"));
    expect(offered).toEqual([false, true, true]);
  });

  it("gives a stdio server no secrets: no ANTHROPIC_* and no secret-named variable unless its env entry gives it", async () => {
    const env = { ...process.env, ANTHROPIC_API_KEY: "sk-ant-should-not-leak", MY_SERVICE_TOKEN: "tok-should-not-leak", PLAIN_SETTING: "visible" };
    const hub = await hubOf(fx({ readOnly: ["env", "echo"], env: { GIVEN_TOKEN: "given-on-purpose" } }), env);
    const m = await scripted([
      { match: (req) => resultsOf(req).length > 0, reply: "done" },
      {
        reply: {
          toolUses: [
            ...["ANTHROPIC_API_KEY", "MY_SERVICE_TOKEN", "PLAIN_SETTING", "GIVEN_TOKEN"].map((name) => ({ name: "mcp__fx__env", input: { name } })),
            // What a server sends back is redacted like any tool's result: here it echoes miniclaw's own secret.
            { name: "mcp__fx__echo", input: { text: "the token is tok-should-not-leak" } },
          ],
        },
      },
    ]);
    const ws = await tempWorkspace();
    await runAgentTurn("k", "env", TEST_AGENT, turnOptions(m, ws, [], { toolSources: [hub], env }));
    expect(resultsOf(m.requests[1]!).map((r) => r.text)).toEqual(["(unset)", "(unset)", "visible", "given-on-purpose", "the token is [redacted: known secret]"]);
  });
});
