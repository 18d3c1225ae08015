// The gate asked the three ways its tests ask it: about a command, a path, or a tool call, each settled at once.
import type { Gate, GateCall } from "../../src/gate/context.js";
import { createGate, type GateOptions } from "../../src/gate/gate.js";
import { createCommandJudge } from "../../src/shell/index.js";

async function settled(gate: Gate, call: GateCall) {
  return (await gate.check(call)).settle();
}

/** A gate over the shell's command judge, with one method per kind of question. */
export function testGate(options: Omit<GateOptions, "judge">) {
  const gate = createGate({ ...options, judge: createCommandJudge() });
  return {
    gate,
    async checkCommand(command: string, id: string) {
      const d = await settled(gate, { id, tool: "run_command", input: { command }, access: { command } });
      return d.allowed ? { allowed: true as const, readOnly: d.readOnly } : d;
    },
    async checkPath(path: string, access: "read" | "write", id: string) {
      const d = await settled(gate, { id, tool: access === "write" ? "write_file" : "read_file", input: { path }, access: { path, ...(access === "write" && { write: true }) } });
      return d.allowed ? { allowed: true as const, path: d.path! } : d;
    },
    async checkTool(call: { tool: string; input: unknown; readOnly: boolean; needsApproval: boolean }, id: string) {
      const access = call.needsApproval ? "ask" : call.readOnly ? "read" : "act";
      const d = await settled(gate, { id, tool: call.tool, input: call.input, access });
      return d.allowed ? { allowed: true as const } : d;
    },
    askLeavePlan: (plan: string, id: string) => gate.askLeavePlan(plan, id),
    deniesTool: (tool: string) => gate.deniesTool(tool),
  };
}
