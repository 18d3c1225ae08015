// The exit_plan_mode tool: the model hands its plan to the user, who chooses the mode to carry it out in.
import * as z from "zod";
import { ToolError } from "../errors.js";
import type { PermissionMode } from "../gate/context.js";
import { defineTool, type Tool } from "./define.js";
import type { ToolSource } from "./source.js";

const input = z.object({ plan: z.string().min(1).describe("The plan to carry out, in Markdown: the steps, the files to change and the commands to run") });

/**
 * Offers exit_plan_mode once the mode is plan, and for the rest of the turn (outside plan mode it refuses): a tool withdrawn
 * mid-turn could leave tool_use blocks with no tools, which the API refuses, and each change of the tools costs the cache.
 */
export function planSource(): ToolSource {
  const tool = createExitPlanModeTool();
  return { list: ({ mode, offered }) => (mode === "plan" || offered.has(tool.name) ? [tool] : []) };
}

/**
 * `exit_plan_mode({ plan })`: asks the user (`gate.askLeavePlan`) to approve the plan; on approval the turn takes the mode the
 * user chose (never `bypassPermissions`) and the result names it. Outside plan mode, or where nobody can answer (`run`, cron),
 * an is_error result, the mode unchanged. Read-only, so it runs in plan mode; it asks the user itself.
 */
export function createExitPlanModeTool(): Tool<z.infer<typeof input>> {
  return defineTool({
    name: "exit_plan_mode",
    description:
      "In plan mode, call this with your plan once you have investigated and are ready to act. The user reviews the plan and chooses whether to leave plan mode; " +
      "the result says which mode you are in then. Call it only in plan mode, and only with a complete plan.",
    input,
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
}

/** What the model may now do unasked, per mode it can be left in. */
const MODE_HINTS: Record<"default" | "acceptEdits" | "dontAsk", string> = {
  default: "files inside the working folder and workspace are written unasked, and the user is asked about other changes and commands.",
  acceptEdits: "files inside the working folder and workspace are written and edited unasked, and commands that may change something still need the user's approval.",
  dontAsk: "what would need the user's approval is refused without asking.",
};
