// The approver that asks the person at the terminal: Allow "cmd"? [y]es once / [a]lways / [n]o / [d]eny always.
import { styleText } from "node:util";
import type { Approver } from "../deps.js";
import type { ApprovalDecision } from "../types.js";
import { approvalQuestion } from "./approval-question.js";
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

export interface TerminalApproverOptions {
  color: boolean;
  turnSignal: () => AbortSignal | undefined;
  /** Terminal columns at the time of the question (the window may have been resized). */
  width: () => number;
  /** The approvals file "always" writes to, named in the question. */
  approvalsFile: string;
}

/**
 * Asks on the terminal and maps the answer; asks again on anything else. The command
 * and reason come from the model, so they are shown through `approvalQuestion` (escaped,
 * whole); our own colors are added around them. End of input, or an interrupt of the
 * turn (Ctrl-C at the question), answers "no" at once.
 */
export function terminalApprover(input: LineInput, out: { write(text: string): void }, opts: TerminalApproverOptions): Approver {
  return async (request) => {
    const paint = (text: string): string => (opts.color ? styleText("yellow", text) : text);
    const mark = (text: string): string => (opts.color ? styleText("dim", text) : text);
    const signal = opts.turnSignal();
    const question = approvalQuestion(request, { width: opts.width(), approvalsFile: opts.approvalsFile, mark });
    out.write(`${question.lines.map(paint).join("\n")}\n`);
    for (let tries = 0; tries < 5; tries++) {
      const answer = (await untilAborted(input.ask(paint(question.prompt)), signal)).trim().toLowerCase();
      if (signal?.aborted) return "deny_once";
      const decision = ANSWERS[answer];
      if (decision) return decision;
      out.write("Please answer y, a, n or d.\n");
    }
    return "deny_once";
  };
}

/** The answer, or "" as soon as the turn is interrupted (Ctrl-C at the question). */
function untilAborted(answer: Promise<string>, signal: AbortSignal | undefined): Promise<string> {
  if (!signal) return answer;
  if (signal.aborted) return Promise.resolve("");
  return new Promise((resolve) => {
    const onAbort = (): void => resolve("");
    signal.addEventListener("abort", onAbort, { once: true });
    answer.then((text) => {
      signal.removeEventListener("abort", onAbort);
      resolve(text);
    });
  });
}
