// The delegate tool: a task handed to another agent, which works on it as a subagent of the turn and answers with its final text.
import * as z from "zod";
import { ToolError } from "../errors.js";
import { isSuccessfulStop, type AgentConfig } from "../types.js";
import { defineTool, type AnyTool } from "./define.js";
import type { ToolSource } from "./source.js";

/**
 * `delegate { agent, task }` for an agent whose SOUL.md lists `delegates` (of `agents`, never itself); the turn runs the
 * subagent (`TurnScope.delegate`). The result is its final text; an error or a brake is an is_error result. Read-only as the
 * gate sees it (each of the subagent's calls is gated), so the delegate calls of one response run together.
 */
export function delegateSource(agents: Readonly<Record<string, AgentConfig>>): ToolSource {
  const made = new Map<string, AnyTool | undefined>();
  return {
    list({ agent }) {
      if (!made.has(agent.id)) made.set(agent.id, delegateTool(agent, agents));
      const tool = made.get(agent.id);
      return tool ? [tool] : [];
    },
  };
}

function delegateTool(parent: AgentConfig, agents: Readonly<Record<string, AgentConfig>>): AnyTool | undefined {
  const ids = (parent.delegates ?? []).filter((id) => id !== parent.id && agents[id] !== undefined);
  const [first, ...rest] = ids;
  if (first === undefined) return undefined;
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
  return { ...tool, waitsOnInterrupt: true };
}
