// Loading agents from SOUL.md: the shipped ones, field errors named, one bad agent not stopping the rest, a workspace without agents.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { TEMPLATE_WORKSPACE } from "../../src/paths.js";
import { runAgentTurn } from "../../src/loop/run-turn.js";
import { BUILTIN_TOOL_NAMES, loadAgents, SERVER_TOOL_NAMES } from "../../src/runtime/agents.js";
import { resolveAgent } from "../../src/assistant/routing.js";
import { buildSystemPrompt } from "../../src/runtime/system-prompt.js";
import { startScriptedModel } from "../../src/testing/index.js";
import { clientFor } from "../helpers/scripted.js";
import { tempDir } from "../helpers/temp-dir.js";

let workspace: string;
beforeEach(async () => {
  workspace = await tempDir("miniclaw-agents-");
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function soul(id: string, text: string): Promise<string> {
  await mkdir(join(workspace, "agents", id), { recursive: true });
  const file = join(workspace, "agents", id, "SOUL.md");
  await writeFile(file, text);
  return file;
}

async function load(): Promise<{ agents: Awaited<ReturnType<typeof loadAgents>>; warnings: string[] }> {
  const warnings: string[] = [];
  const agents = await loadAgents(workspace, { onWarning: (message) => warnings.push(message) });
  return { agents, warnings };
}

describe("loadAgents", () => {
  it("loads the shipped agents: Jarvis as main and Scout behind /research", async () => {
    const warnings: string[] = [];
    const agents = await loadAgents(TEMPLATE_WORKSPACE, { onWarning: (message) => warnings.push(message) });
    expect(warnings).toEqual([]);
    expect(Object.keys(agents)).toEqual(["main", "researcher"]);
    expect(agents["main"]).toMatchObject({ id: "main", name: "Jarvis" });
    expect(agents["researcher"]).toMatchObject({ id: "researcher", name: "Scout", prefix: "/research" });
    expect(agents["researcher"]?.tools).toContain("save_memory");
    expect(agents["main"]?.prompt).toMatch(/save|memory/i);
    expect(agents["researcher"]?.prompt).toMatch(/save_memory/);
    expect(resolveAgent("/research what is new?", agents)).toEqual(["researcher", "what is new?"]);
  });

  it("sends a /research message to Scout, with Scout's SOUL as the system prompt and the prefix removed", async () => {
    const agents = await loadAgents(TEMPLATE_WORKSPACE);
    const [agentId, text] = resolveAgent("/research what changed in Rust async?", agents);
    const agent = agents[agentId];
    if (!agent) throw new Error(`no agent ${agentId}`);
    const model = await startScriptedModel([{ reply: "Here is what I found." }]);
    try {
      const result = await runAgentTurn(`agent:${agentId}:main`, text, agent, { runtime: { workspace, client: clientFor(model), builtinTools: false } });
      expect(result).toMatchObject({ agentId: "researcher", sessionKey: "agent:researcher:main", text: "Here is what I found." });
      const body = model.requests[0]?.body;
      expect(JSON.stringify(body?.system)).toContain("You are Scout");
      expect(JSON.stringify(body?.messages?.[0])).toContain("what changed in Rust async?");
      expect(JSON.stringify(body?.messages?.[0])).not.toContain("/research");
    } finally {
      await model.close();
    }
  });

  it("reads every field and maps max_tokens to maxTokens", async () => {
    await soul("helper", "---\nname: Helper\nmodel: claude-x\nprefix: /help-me\ntools: [read_file, memory_search]\nmax_tokens: 2048\n---\n\nBe helpful.\n");
    const { agents, warnings } = await load();
    expect(warnings).toEqual([]);
    expect(agents["helper"]).toEqual({
      id: "helper",
      name: "Helper",
      prompt: "Be helpful.",
      model: "claude-x",
      prefix: "/help-me",
      tools: ["read_file", "memory_search"],
      maxTokens: 2048,
    });
  });

  it("names the file and the field of a bad agent and still loads the others", async () => {
    await soul("good", "---\nname: Good\n---\nI work.\n");
    const cases: Array<[id: string, text: string, field: RegExp]> = [
      ["no-name", "---\nmodel: x\n---\nbody\n", /name: is required/],
      ["bad-prefix", "---\nname: B\nprefix: research\n---\nbody\n", /prefix: must start with "\/"/],
      ["two-words", "---\nname: B\nprefix: /two words\n---\nbody\n", /prefix: /],
      ["bad-tokens", "---\nname: B\nmax_tokens: -5\n---\nbody\n", /max_tokens: must be greater than 0/],
      ["float-tokens", "---\nname: B\nmax_tokens: 1.5\n---\nbody\n", /max_tokens: must be a whole number/],
      ["bad-tools", "---\nname: B\ntools: [1, 2]\n---\nbody\n", /tools/],
      ["empty-body", "---\nname: B\n---\n   \n", /body .* is empty/],
      ["bad-yaml", "---\nname: [unclosed\n---\nbody\n", /frontmatter cannot be parsed/],
    ];
    const files = new Map<string, string>();
    for (const [id, text] of cases) files.set(id, await soul(id, text));
    const { agents, warnings } = await load();
    expect(Object.keys(agents)).toEqual(["good"]);
    expect(warnings).toHaveLength(cases.length);
    for (const [id, , field] of cases) {
      const warning = warnings.find((w) => w.includes(files.get(id) ?? "?"));
      expect(warning, id).toMatch(field);
    }
  });

  it("accepts tools written as a plain list of names and warns about unknown fields", async () => {
    await soul("main", "---\nname: M\ntools: read_file, memory_search\nmaxtokens: 5\n---\nbody\n");
    const { agents, warnings } = await load();
    expect(agents["main"]?.tools).toEqual(["read_file", "memory_search"]);
    expect(warnings).toEqual([expect.stringMatching(/unknown field "maxtokens" ignored/)]);
  });

  it("keeps a prefix for the first agent that claims it", async () => {
    await soul("alpha", "---\nname: A\nprefix: /go\n---\nA\n");
    await soul("beta", "---\nname: B\nprefix: /go\n---\nB\n");
    const { agents, warnings } = await load();
    expect(agents["alpha"]?.prefix).toBe("/go");
    expect(agents["beta"]?.prefix).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/beta.*prefix "\/go" is already used by agent "alpha"/)]);
  });

  it("throws a ConfigError with every reason when no agent loads", async () => {
    await soul("main", "---\nname: ''\n---\nbody\n");
    const error = await loadAgents(workspace).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/No agent could be loaded.*name: must not be empty/);
    await rm(join(workspace, "agents", "main"), { recursive: true });
    await expect(loadAgents(workspace)).rejects.toThrow(/has no agent: .*agents\/main\/SOUL\.md.*miniclaw init/);
  });

  it("creates the default agents in a workspace that does not exist or is an empty folder", async () => {
    for (const dir of [workspace, join(workspace, "new", "ws")]) {
      const agents = await loadAgents(dir);
      expect(Object.keys(agents)).toEqual(["main", "researcher"]);
      expect(await readFile(join(dir, "agents", "main", "SOUL.md"), "utf8")).toBe(await readFile(join(TEMPLATE_WORKSPACE, "agents", "main", "SOUL.md"), "utf8"));
      expect(existsSync(join(dir, "cron.json"))).toBe(true);
    }
  });

  it("creates nothing when asked not to", async () => {
    await expect(loadAgents(workspace, { create: false })).rejects.toThrow(ConfigError);
    expect(await readdir(workspace)).toEqual([]);
  });

  it("explains in one paragraph how to add an agent when a folder with files has no agents/", async () => {
    await writeFile(join(workspace, "notes.txt"), "mine\n");
    const error = await loadAgents(workspace).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toContain(`The workspace ${workspace} has no agent`);
    expect(message).toContain(`create ${join(workspace, "agents", "main", "SOUL.md")}`);
    expect(message).toContain(`miniclaw init ${workspace}`);
    expect(await readdir(workspace)).toEqual(["notes.txt"]);
  });

  it("warns at load about a tools: name no tool has, naming the known tools, and keeps the agent", async () => {
    await soul("main", "---\nname: M\ntools: [read_fil, memory_search, weather, mcp__github__list_issues]\n---\nbody\n");
    const warnings: string[] = [];
    const agents = await loadAgents(workspace, { knownTools: ["weather"], onWarning: (w) => warnings.push(w) });
    expect(agents["main"]?.tools).toEqual(["read_fil", "memory_search", "weather", "mcp__github__list_issues"]);
    expect(warnings).toEqual([
      `${join(workspace, "agents", "main", "SOUL.md")}: tools: no tool named "read_fil" (known tools: ${[...BUILTIN_TOOL_NAMES, ...SERVER_TOOL_NAMES, "weather"].join(", ")})`,
    ]);
    expect(warnings[0]).toContain("read_file");
  });

  it("knows the built-in tools a turn is given", async () => {
    const model = await startScriptedModel([{ reply: "ok" }]);
    try {
      const agent = { id: "main", name: "M", prompt: "p" };
      const result = await runAgentTurn("agent:main:main", "hi", agent, { workspace, client: clientFor(model) });
      expect(result.stopReason).toBe("end_turn");
      const sent = (model.requests[0]?.body?.tools ?? []).map((tool) => (tool as { name: string }).name);
      expect([...sent].sort()).toEqual([...BUILTIN_TOOL_NAMES].sort());
    } finally {
      await model.close();
    }
  });

  it("does not share parsed data between equal files (no gray-matter cache leak)", async () => {
    const text = "---\nname: Same\ntools: [read_file]\n---\nbody\n";
    await soul("one", text);
    await soul("two", text);
    const { agents } = await load();
    agents["one"]?.tools?.push("run_command");
    expect(agents["two"]?.tools).toEqual(["read_file"]);
    const again = await load();
    expect(again.agents["one"]?.tools).toEqual(["read_file"]);
  });
});
