// The tools of a turn: the built-ins, MCP servers' tools, the web server tools, filtered by the agent's tools: list.
import type { AgentConfig, EventSink, ToolChoiceSetting, WebSettings } from "../types.js";
import { ConfigError } from "../errors.js";
import type { Env } from "../model/client.js";
import type { MemoryStore } from "../memory/store.js";
import type { SkillLoader } from "../skills/loader.js";
import type { PermissionContext } from "../gate/context.js";
import { hubFor, McpHub } from "../mcp/hub.js";
import { parseMcpConfig } from "../mcp/config.js";
import { compileGlob } from "../mcp/names.js";
import { createFileTools } from "../tools/files.js";
import { createLoadSkillTool } from "../tools/load-skill.js";
import { createRunCommandTool } from "../shell/run-command.js";
import { createMemoryTools } from "../tools/memory.js";
import type { AnyTool } from "../tools/define.js";
import type { TurnOptions, TurnRuntime } from "./options.js";

const builtinCache = new WeakMap<MemoryStore, { skills: SkillLoader; timeoutMs: number | undefined; tools: AnyTool[] }>();

/**
 * The tools every agent has unless its SOUL.md narrows them. Built once per memory
 * store and skill loader (a REPL or cron process reuses them: their schemas are
 * derived once, and the definitions stay byte-identical for the prompt cache).
 */
export function builtinTools(memory: MemoryStore, skills: SkillLoader, timeoutMs: number | undefined): AnyTool[] {
  const cached = builtinCache.get(memory);
  if (cached && cached.skills === skills && cached.timeoutMs === timeoutMs) return cached.tools;
  const tools = [
    createRunCommandTool(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...createFileTools(),
    ...createMemoryTools(memory),
    createLoadSkillTool(skills),
  ];
  builtinCache.set(memory, { skills, timeoutMs, tools });
  return tools;
}

/**
 * Refuses, before any request, what every request of the turn would be refused for: a tool
 * choice naming a tool the turn does not offer, or a tool of the turn named like a web server tool it offers.
 */
export function checkToolNames(agent: AgentConfig, tools: ReadonlyMap<string, AnyTool>, web: WebSettings | undefined, toolChoice: ToolChoiceSetting | undefined): void {
  const serverTools = [...(web?.search ? ["web_search"] : []), ...(web?.fetch ? ["web_fetch"] : [])];
  const twice = serverTools.find((name) => tools.has(name));
  if (twice) {
    const why = `a tool named "${twice}" is given while its SOUL.md "web" offers the server tool of that name`;
    throw new ConfigError(`agent "${agent.id}": ${why}: rename the tool, or turn that part of web off`);
  }
  if (typeof toolChoice !== "object" || tools.has(toolChoice.tool) || serverTools.includes(toolChoice.tool)) return;
  const offered = [...tools.keys(), ...serverTools].join(", ") || "none";
  throw new ConfigError(`agent "${agent.id}": "tool_choice" names the tool "${toolChoice.tool}", which this turn does not offer (offered: ${offered})`);
}

/**
 * The agent's web server tools that its `tools:` list names (when it has one) and the approvals
 * file does not deny: they run at the provider, so leaving them out is the only gate there is.
 */
export async function offeredWeb(agent: AgentConfig, permissions: PermissionContext): Promise<WebSettings | undefined> {
  const web: WebSettings = { ...agent.web };
  for (const [key, name] of [["search", "web_search"], ["fetch", "web_fetch"]] as const) {
    if (!web[key]) continue;
    const listed = agent.tools === undefined || isAllowedTool(name, agent.tools);
    if (!listed || (await permissions.deniesTool?.(name))) delete web[key];
  }
  return web.search || web.fetch ? web : undefined;
}

/** A server config given for one turn is connected now (its failures are the turn's warnings); a hub is connected once. */
export async function openMcp(servers: TurnOptions["mcpServers"], env: Env, emit: EventSink): Promise<McpHub | undefined> {
  if (servers === undefined) return undefined;
  const hub = servers instanceof McpHub ? servers : hubFor(parseMcpConfig(servers, "the mcpServers option", env), env, (message) => emit({ type: "warning", message }));
  await hub.connect();
  return hub;
}

/** Whether a `tools:` list names the tool: exactly, or by a glob such as `mcp__github__*`. */
export function isAllowedTool(name: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => entry === name || (/[*?]/.test(entry) && compileGlob(entry).test(name)));
}

/**
 * Takes in, between two requests, the tool lists MCP servers announced as changed
 * (`tools/list_changed`): their tools are replaced, through the agent's `tools:` list again.
 */
export async function refreshMcpTools(rt: TurnRuntime): Promise<void> {
  if (!rt.mcp || !(await rt.mcp.refresh())) return;
  for (const name of [...rt.tools.keys()]) if (name.startsWith("mcp__")) rt.tools.delete(name);
  for (const tool of rt.mcp.tools()) if (!rt.allowedTools || isAllowedTool(tool.name, rt.allowedTools)) rt.tools.set(tool.name, tool);
}

/**
 * Offers exit_plan_mode once the mode is plan. Within a turn it then stays (outside plan mode it
 * refuses): a tool withdrawn mid-turn could leave a request holding tool_use blocks and no tools,
 * which the API refuses, and every change of the tools costs the prompt cache.
 */
export function offerPlanTool(rt: TurnRuntime, planTool: AnyTool | undefined): void {
  if (planTool && rt.modes.mode === "plan") rt.tools.set(planTool.name, planTool);
}
