import { describe, expect, it } from "vitest";
import { approvalQuestion, planQuestion } from "../../src/cli/approval-question.js";

const request = (plan: string, agent?: string) => ({
  tool: "exit_plan_mode",
  command: plan,
  reason: "leave plan mode and carry out this plan",
  input: { plan },
  ...(agent !== undefined && { agent }),
});

describe("the plan question of exit_plan_mode", () => {
  it("shows the plan whole, one marked row per line, and asks for the mode to carry it out in", () => {
    const q = planQuestion(request("1. Read src/app.ts\n2. Fix the loop\n\n3. Run\tnpm test\n"), { width: 80 });
    expect(q.lines).toEqual([
      "The model has a plan and asks to leave plan mode to carry it out:",
      "  │ 1. Read src/app.ts",
      "  │ 2. Fix the loop",
      "  │",
      "  │ 3. Run    npm test",
    ]);
    expect(q.prompt).toBe("Leave plan mode? [y]es, default mode / [a]ccept edits / [n]o, keep planning ");
  });

  it("escapes what a terminal would act on, wraps long lines, folds a flood of blank lines, and names a subagent", () => {
    const q = planQuestion(request(`clear \x1b[2J\u202e done\n${"x".repeat(30)}\n\n\n\n\nend`, "researcher"), { width: 20 });
    expect(q.lines).toEqual([
      "Subagent researcher has a plan and asks to leave plan mode to carry it out:",
      "  │ clear \\x1b[2J",
      "  │ \\u202e done",
      `  │ ${"x".repeat(16)}`,
      `  │ ${"x".repeat(14)}`,
      "  │ ⟨4 blank lines⟩",
      "  │ end",
    ]);
  });

  it("names the subagent that asks for an approval", () => {
    const q = approvalQuestion({ tool: "run_command", command: "npm test", reason: "runs a program", alwaysSaves: "npm test", agent: "researcher" }, { width: 120, approvalsFile: "/ws/exec-approvals.json" });
    expect(q.lines[0]).toBe("Subagent researcher: run_command needs approval: runs a program");
  });
});
