// Runs one tool call as the dispatcher does: the gate asked once first (a refusal thrown as the ToolError the model reads), then `run` with the grant.
import { ToolError } from "../../src/errors.js";
import { approveCall } from "../../src/tools/approve.js";
import { isReadOnlyCall, type AnyTool, type ToolContext, type ToolOutput } from "../../src/tools/define.js";

/** The tool's output, or a rejection: the gate's refusal (as a ToolError) or the tool's own error. */
export async function gatedRun(tool: AnyTool, input: unknown, context: ToolContext): Promise<ToolOutput> {
  const approval = await approveCall(tool, input, isReadOnlyCall(tool, input), context);
  if (!approval.allowed) throw new ToolError(approval.reason);
  return tool.run(input, { ...context, grant: approval.grant });
}
