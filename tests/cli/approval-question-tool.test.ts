// The approval question for a call of a custom tool: its name and input (escaped), and "always" saving the tool's name.
import { describe, expect, it } from "vitest";
import { approvalQuestion } from "../../src/cli/approval-question.js";

const layout = { width: 100, approvalsFile: "/ws/exec-approvals.json" };
const request = (command: string, input: unknown) => ({ tool: "deploy", command, reason: "the tool is declared to need approval", alwaysSaves: "deploy", input });

describe("approvalQuestion for a tool call", () => {
  it("asks inline with the call as name and JSON input, and says always saves the tool name", () => {
    const q = approvalQuestion(request('deploy {"env":"prod"}', { env: "prod" }), layout);
    expect(q.prompt).toBe('Allow deploy {"env":"prod"}? [y]es once / [a]lways / [n]o / [d]eny always ');
    expect(q.lines).toEqual([
      "deploy needs approval: the tool is declared to need approval",
      '  [a]lways adds the tool name "deploy" to "allowed" in /ws/exec-approvals.json; [d]eny always adds it to "denied"',
    ]);
  });

  it("shows an input with invisible characters whole and escaped above a prompt that quotes nothing from the model", () => {
    const q = approvalQuestion(request('deploy {"env":"prod\u202e? [y]es"}', { env: "prod\u202e? [y]es" }), layout);
    expect(q.prompt).toBe("Allow the call above? [y]es once / [a]lways / [n]o / [d]eny always ");
    expect(q.lines.slice(1)).toEqual([
      "  the call (one line, 29 characters; 1 control or invisible character is shown as \\x.. or \\u.. escapes):",
      '  1 │ deploy {"env":"prod\\u202e? [y]es"}',
      '  [a]lways adds the tool name "deploy" to "allowed" in /ws/exec-approvals.json; [d]eny always adds it to "denied"',
    ]);
  });
});
