// Runs one tool call as the dispatcher does: the gate asked once first (a refusal thrown as the ToolError the model reads), then `run` with the grant.
import { ToolError } from "../../src/errors.js";
import { accessOf, type AnyTool, type ToolContext, type ToolOutput } from "../../src/tools/define.js";

/** The tool's output, or a rejection: the gate's refusal (as a ToolError) or the tool's own error. */
export async function gatedRun(tool: AnyTool, input: unknown, context: ToolContext): Promise<ToolOutput> {
  const judged = await context.gate.check({ id: context.toolUseId, tool: tool.name, input, access: await accessOf(tool, input, context) });
  const decision = await judged.settle();
  if (!decision.allowed) throw new ToolError(decision.reason);
  const { allowed: _allowed, ...grant } = decision;
  return tool.run(input, { ...context, grant });
}

/** What the gate answers about a command, as run_command would ask it. */
export async function checkCommand(context: Pick<ToolContext, "gate">, command: string, id = "t") {
  return (await context.gate.check({ id, tool: "run_command", input: { command }, access: { command } })).settle();
}

/** What the gate answers about a path, as the file tools would ask it. */
export async function checkPath(context: Pick<ToolContext, "gate">, path: string, access: "read" | "write", id = "t") {
  return (await context.gate.check({ id, tool: access === "write" ? "write_file" : "read_file", input: { path }, access: { path, ...(access === "write" && { write: true }) } })).settle();
}
