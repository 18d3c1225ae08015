// Tool sources: where a request's tools come from, asked before each request; and the turn's own tools, delegate and exit_plan_mode.
import * as z from "zod";
import { ToolError } from "../errors.js";
import { compileGlob } from "../gate/approval-entries.js";
import type { PermissionMode } from "../gate/context.js";
import { isSuccessfulStop, type AgentConfig } from "../types.js";
import { defineTool, type AnyTool } from "./define.js";

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

/** `delegate { agent, task }` for an agent with `delegates` (never itself): the subagent's final text, or an is_error result. Read-only to the gate (each of its calls is gated), so delegate calls run together. */
export function delegateSource(agents: Readonly<Record<string, AgentConfig>>): ToolSource {
  const made = new Map<string, AnyTool[]>();
  return {
    list({ agent }) {
      if (!made.has(agent.id)) made.set(agent.id, delegateTools(agent, agents));
      return made.get(agent.id)!;
    },
  };
}

function delegateTools(parent: AgentConfig, agents: Readonly<Record<string, AgentConfig>>): AnyTool[] {
  const ids = (parent.delegates ?? []).filter((id) => id !== parent.id && agents[id] !== undefined);
  const [first, ...rest] = ids;
  if (first === undefined) return [];
  const described = ids.map((id) => `${id} (${agents[id]!.name})`).join(", ");
  const tool = defineTool({
    name: "delegate",
    description:
      `Hands a task to another agent, which works on it in a fresh context and returns its final answer: ${described}. ` +
      "It sees none of this conversation: put everything it needs in the task. Several delegate calls in one response run at the same time.",
    input: z.object({ agent: z.enum([first, ...rest]), task: z.string().trim().min(1, "must say what to do") }),
    access: "read",
    async run({ agent, task }, context) {
      if (!context.turn) throw new ToolError("delegate runs only inside a turn");
      const result = await context.turn.delegate(agent, task, context.toolUseId);
      if (isSuccessfulStop(result.stopReason)) return result.text || "(the subagent finished without a text answer)";
      const why = `${result.stopReason}${result.error ? `: ${result.error}` : ""}`;
      throw new ToolError(`the subagent ${agent} stopped (${why})${result.text ? `; its last answer: ${result.text}` : ""}`);
    },
  });
  // The subagent shares the turn's abort signal and stops at once; waiting for it keeps its events before the parent's end.
  return [{ ...tool, waitsOnInterrupt: true }];
}

/** Offers exit_plan_mode in plan mode, then for the rest of the turn: a tool withdrawn mid-turn could leave tool_use blocks with no tools, and costs the cache. */
export function planSource(): ToolSource {
  return { list: ({ mode, offered }) => (mode === "plan" || offered.has(exitPlanModeTool.name) ? [exitPlanModeTool] : []) };
}

/** What the model may now do unasked, per mode it can be left in. */
const MODE_HINTS: Record<"default" | "acceptEdits" | "dontAsk", string> = {
  default: "files inside the working folder and workspace are written unasked, and the user is asked about other changes and commands.",
  acceptEdits: "files inside the working folder and workspace are written and edited unasked, and commands that may change something still need the user's approval.",
  dontAsk: "what would need the user's approval is refused without asking.",
};

/**
 * `exit_plan_mode({ plan })`: the user approves the plan (`gate.askLeavePlan`) and the turn takes the mode they chose (never `bypassPermissions`). Outside
 * plan mode or where nobody can answer, an is_error result. Read-only, so it runs in plan mode; it asks the user itself.
 */
export const exitPlanModeTool = defineTool({
  name: "exit_plan_mode",
  description:
    "In plan mode, call this with your plan once you have investigated and are ready to act. The user reviews the plan and chooses whether to leave plan mode; " +
    "the result says which mode you are in then. Call it only in plan mode, and only with a complete plan.",
  input: z.object({ plan: z.string().min(1).describe("The plan to carry out, in Markdown: the steps, the files to change and the commands to run") }),
  access: "read",
  async run({ plan }, context) {
    const previous = context.gate.mode;
    if (previous !== "plan") throw new ToolError(`You are not in plan mode (the permission mode is ${previous}): carry on without exit_plan_mode.`);
    if (!context.turn) throw new ToolError("exit_plan_mode runs only inside a turn");
    const answer = await context.gate.askLeavePlan(plan, context.toolUseId);
    if (!answer.answered) throw new ToolError(answer.reason);
    if (answer.mode === undefined || answer.mode === "plan") {
      return "The user did not approve the plan: you are still in plan mode, where only what reads runs. Ask the user what to change, or revise the plan and call exit_plan_mode again.";
    }
    // A gate written for a library could still answer bypassPermissions: only the user enters it, so default stands in.
    const mode = (answer.mode as PermissionMode) === "bypassPermissions" ? "default" : answer.mode;
    context.turn.setMode(mode);
    return `The user approved the plan. The permission mode is now ${mode}: ${MODE_HINTS[mode]} Carry out the plan.`;
  },
});
