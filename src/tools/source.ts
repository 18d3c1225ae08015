// Tool sources: where a request's tools come from (the built-ins, MCP servers, delegate, plan mode), asked before each request.
import { compileGlob } from "../gate/approval-entries.js";
import type { PermissionMode } from "../gate/context.js";
import type { AgentConfig } from "../types.js";
import type { AnyTool } from "./define.js";

/** What a source sees of the request it lists tools for. */
export interface ToolView {
  /** The agent the request is for (its `tools:` list filters every source). */
  agent: AgentConfig;
  /** The permission mode now. */
  mode: PermissionMode;
  /** Names this turn offered in an earlier request: a tool once offered stays for the turn. */
  offered: ReadonlySet<string>;
}

/** Asked before each request (a server's new list shows in the next); must answer quickly, the same tools in the same order for the same view (they are cached). `close` is the owner's. */
export interface ToolSource {
  list(view: ToolView): readonly AnyTool[] | Promise<readonly AnyTool[]>;
  close?(): Promise<void>;
}

/** A fixed list of tools as a source. */
export function toolList(tools: readonly AnyTool[]): ToolSource {
  return { list: () => tools };
}

/** The tools of one request: every source in order (a later tool replaces a same-named one where it stood), then only those the agent is offered. */
export async function collectTools(sources: readonly ToolSource[], view: ToolView): Promise<Map<string, AnyTool>> {
  const lists = await Promise.all(sources.map((source) => source.list(view)));
  const tools = new Map<string, AnyTool>();
  for (const list of lists) for (const tool of list) tools.set(tool.name, tool);
  for (const name of [...tools.keys()]) if (!isOffered(name, view.agent)) tools.delete(name);
  return tools;
}

/** Whether a tool of this name reaches the agent: it has no `tools:` list, or the list names it, exactly or by a glob (`mcp__github__*`). */
export function isOffered(name: string, agent: Pick<AgentConfig, "tools">): boolean {
  return agent.tools === undefined || agent.tools.some((entry) => entry === name || (/[*?]/.test(entry) && compileGlob(entry).test(name)));
}
