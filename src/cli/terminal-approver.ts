// The approver that asks the person at the terminal: Allow "cmd"? [y]es once / [a]lways / [n]o / [d]eny always.
import { styleText } from "node:util";
import type { ApprovalRequest, Approver } from "../deps.js";
import type { ApprovalDecision } from "../types.js";
import type { LineInput } from "./line-input.js";

const ANSWERS: Record<string, ApprovalDecision> = {
  y: "allow_once",
  yes: "allow_once",
  a: "allow_always",
  always: "allow_always",
  n: "deny_once",
  no: "deny_once",
  d: "deny_always",
  deny: "deny_always",
};

/** The question as it is printed. */
export function approvalQuestion(request: ApprovalRequest): string {
  return `Allow "${request.command}"? [y]es once / [a]lways / [n]o / [d]eny always `;
}

/**
 * Asks on the terminal and maps the answer; asks again on anything else. End of input,
 * or an interrupt of the turn (`interrupted()` true), answers "no".
 */
export function terminalApprover(input: LineInput, out: { write(text: string): void }, opts: { color: boolean; interrupted: () => boolean }): Approver {
  return async (request) => {
    const paint = (text: string): string => (opts.color ? styleText("yellow", text) : text);
    out.write(`${paint(`${request.tool} needs approval: ${request.reason}`)}\n`);
    for (let tries = 0; tries < 5; tries++) {
      const answer = (await input.ask(paint(approvalQuestion(request)))).trim().toLowerCase();
      if (opts.interrupted()) return "deny_once";
      const decision = ANSWERS[answer];
      if (decision) return decision;
      out.write("Please answer y, a, n or d.\n");
    }
    return "deny_once";
  };
}
