// Asking the gate about one call, once, before `run`: a tool's permission rule (command, path), or its readOnly and needsApproval.
import type { AnyTool, Grant, ToolContext } from "./define.js";

/** The gate's answer for one call: what it granted, or the refusal the model reads. */
export type CallApproval = { allowed: true; grant: Grant } | { allowed: false; reason: string };

/**
 * Asks the gate about a call whose input is already parsed, `readOnly` being the tool's
 * declaration for that input. A tool with a `permission` rule is judged by it: the command
 * gate (its `readOnly` answer decides the sandbox) or the path rule (its real path is
 * granted). Any other tool is judged by its declarations: plan mode refuses it unless
 * read-only; one that needs approval is asked about, or refused where nobody can answer.
 * A throwing `needsApproval` or gate refuses the call: the check fails closed.
 */
export async function approveCall(tool: AnyTool, input: unknown, readOnly: boolean, context: ToolContext): Promise<CallApproval> {
  const { permissions, toolUseId } = context;
  try {
    const rule = tool.permission?.(input);
    if (rule && "command" in rule) {
      const answer = await permissions.checkCommand(rule.command, toolUseId);
      return answer.allowed ? { allowed: true, grant: { readOnly: answer.readOnly } } : answer;
    }
    if (rule) {
      const answer = await permissions.checkPath(rule.path, rule.access, toolUseId);
      return answer.allowed ? { allowed: true, grant: { readOnly, path: answer.path } } : answer;
    }
    const needsApproval = typeof tool.needsApproval === "function" ? await tool.needsApproval(input, context) : tool.needsApproval;
    const answer = await permissions.checkTool({ tool: tool.name, input, readOnly, needsApproval: needsApproval === true }, toolUseId);
    return answer.allowed ? { allowed: true, grant: { readOnly } } : answer;
  } catch (error) {
    return { allowed: false, reason: `Not run: the permission check of ${tool.name} failed (${error instanceof Error ? error.message : String(error)}).` };
  }
}
