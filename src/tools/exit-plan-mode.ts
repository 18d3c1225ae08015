// The exit_plan_mode tool: the model hands its plan to the user, who chooses the mode to carry it out in.
import * as z from "zod";
import { ToolError } from "../errors.js";
import type { PermissionMode } from "../gate/context.js";
import { refusals } from "../gate/refusals.js";
import { defineTool, type Tool } from "./define.js";

const input = z.object({
  plan: z.string().min(1).describe("The plan to carry out, in Markdown: the steps, the files to change and the commands to run"),
});

/** Told a mode change made by exit_plan_mode: the new mode, then the one it replaced (always `plan`). */
export type ModeChangeListener = (mode: PermissionMode, previous: PermissionMode) => void;

/**
 * `exit_plan_mode({ plan })`: asks the user, through the gate's `askLeavePlan`, to approve the plan.
 * On approval it sets `modes.mode` to the mode the user chose (never `bypassPermissions`, which only
 * the user enters, by choosing it themselves) and calls `onChange`; the result tells the model the
 * new mode, or that it is still in plan mode. Outside plan mode, or where nobody can answer (`run`,
 * cron), the call is an is_error result and the mode stays. Read-only, so it runs in plan mode; it
 * needs no approval from the dispatcher because it asks itself.
 */
export function createExitPlanModeTool(modes: { mode: PermissionMode }, onChange?: ModeChangeListener): Tool<z.infer<typeof input>> {
  return defineTool({
    name: "exit_plan_mode",
    description:
      "In plan mode, call this with your plan once you have investigated and are ready to act. The user reviews the plan and chooses whether to leave plan mode; " +
      "the result says which mode you are in then. Call it only in plan mode, and only with a complete plan.",
    input,
    readOnly: true,
    needsApproval: false,
    async run({ plan }, context) {
      const previous = modes.mode;
      if (previous !== "plan") throw new ToolError(`You are not in plan mode (the permission mode is ${previous}): carry on without exit_plan_mode.`);
      const { permissions } = context;
      // A permission context that cannot ask leaves nobody to approve: the same as a non-interactive run.
      if (!permissions.askLeavePlan) throw new ToolError(refusals.leavePlanUnavailable());
      const answer = await permissions.askLeavePlan(plan, context.toolUseId);
      if (!answer.answered) throw new ToolError(answer.reason);
      if (answer.mode === undefined || answer.mode === "plan") {
        return "The user did not approve the plan: you are still in plan mode, where only what reads runs. Ask the user what to change, or revise the plan and call exit_plan_mode again.";
      }
      // A gate written for a library could still answer bypassPermissions: only the user enters it, so default stands in.
      const mode = (answer.mode as PermissionMode) === "bypassPermissions" ? "default" : answer.mode;
      modes.mode = mode;
      onChange?.(mode, previous);
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
