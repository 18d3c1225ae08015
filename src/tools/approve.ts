// Asking the gate about one call, once, before `run`: a tool's permission rule (command, path), or its readOnly and needsApproval.
import type { AnyTool, Grant, PermissionRule, ToolContext } from "./define.js";

/** The gate's answer for one call: what it granted, or the refusal the model reads. */
export type CallApproval = { allowed: true; grant: Grant } | { allowed: false; reason: string };

/**
 * Asks the gate about a call whose input is already parsed, `readOnly` being the tool's
 * declaration for that input. A tool with a `permission` rule is judged by it first: the
 * command gate (its `readOnly` answer decides the sandbox) or the path rule (its real path is
 * granted). Then every tool, with a rule or without, is judged by its declarations: a denied
 * name is refused, plan mode refuses it unless read-only, and one that needs approval is
 * asked about, or refused where nobody can answer.
 * A throwing `needsApproval` or gate refuses the call: the check fails closed.
 */
export async function approveCall(tool: AnyTool, input: unknown, readOnly: boolean, context: ToolContext): Promise<CallApproval> {
  const { permissions, toolUseId } = context;
  try {
    const needsApproval = typeof tool.needsApproval === "function" ? await tool.needsApproval(input, context) : tool.needsApproval === true;
    const rule = tool.permission?.(input);
    const granted = rule ? await checkRule(rule, readOnly, context) : { allowed: true as const, grant: { readOnly } };
    if (!granted.allowed) return granted;
    // Every tool, a rule or not: a denied name is refused, plan mode runs only what is read-only, and
    // a declared needsApproval is asked about (or refused where nobody can answer).
    // Read-only only when both say so: the tool's declaration (its run may do more than the rule names) and its rule's answer.
    const answer = await permissions.checkTool({ tool: tool.name, input, readOnly: readOnly && granted.grant.readOnly, needsApproval }, toolUseId);
    return answer.allowed ? granted : answer;
  } catch (error) {
    return { allowed: false, reason: `Not run: the permission check of ${tool.name} failed (${error instanceof Error ? error.message : String(error)}).` };
  }
}

/** The tool's own rule: the command gate (its `readOnly` answer decides the sandbox) or the path rule (its real path is granted). */
async function checkRule(rule: PermissionRule, readOnly: boolean, context: ToolContext): Promise<CallApproval> {
  const { permissions, toolUseId } = context;
  if ("command" in rule) {
    const answer = await permissions.checkCommand(rule.command, toolUseId);
    return answer.allowed ? { allowed: true, grant: { readOnly: answer.readOnly } } : answer;
  }
  const answer = await permissions.checkPath(rule.path, rule.access, toolUseId);
  return answer.allowed ? { allowed: true, grant: { readOnly, path: answer.path } } : answer;
}
