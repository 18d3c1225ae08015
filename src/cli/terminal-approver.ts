// The approver that asks the person at the terminal: Allow "cmd"? [y]es once / [a]lways / [n]o / [d]eny always, one key, no Enter.
import { styleText } from "node:util";
import type { Approver } from "../deps.js";
import type { ApprovalDecision } from "../types.js";
import type { ApprovalRequest } from "../deps.js";
import { approvalQuestion, type ApprovalQuestion } from "./approval-question.js";
import type { LineInput } from "./line-input.js";
import { EXIT_PLAN_TOOL, PLAN_ANSWERS, planQuestion } from "./plan-question.js";
import { CTRL_C, CTRL_D } from "./terminal-keys.js";

/** Each answer key, the decision it makes and the word echoed after the question. */
const ANSWERS: Record<string, [ApprovalDecision, string]> = {
  y: ["allow_once", "yes"],
  a: ["allow_always", "always"],
  n: ["deny_once", "no"],
  d: ["deny_always", "deny always"],
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
 * Asks on the terminal and takes one key: y, a, n or d (any other key is ignored, with a
 * hint). The command and reason come from the model, so they are shown through
 * `approvalQuestion` (escaped, whole); our own colors are added around them. The answer is
 * echoed as a word and ends the line. Ctrl-C or Esc answer "no"; end of input or an
 * interrupt of the turn answer "no" at once. An exit_plan_mode request shows the plan and
 * takes y (default mode), a (accept edits) or n (keep planning): see `planQuestion`.
 */
export function terminalApprover(input: LineInput, out: { write(text: string): void }, opts: TerminalApproverOptions): Approver {
  return async (request) => {
    const paint = (text: string): string => (opts.color ? styleText("yellow", text) : text);
    const mark = (text: string): string => (opts.color ? styleText("dim", text) : text);
    const signal = opts.turnSignal();
    const { question, answers } = questionFor(request, opts, mark);
    out.write(`${question.lines.map(paint).join("\n")}\n`);
    let prompt = paint(question.prompt);
    for (;;) {
      const key = await untilAborted(input.askKey(prompt), signal);
      if (signal?.aborted || key === CTRL_C || key === CTRL_D) {
        out.write("no\n");
        return "deny_once";
      }
      const answer = answers[key];
      if (answer) {
        out.write(`${answer[1]}\n`);
        return answer[0];
      }
      // Erase the prompt line and ask again with the hint in front.
      prompt = `\r\x1b[K${paint(`(${keyList(answers)}) `)}${paint(question.prompt)}`;
    }
  };
}

/** The question for a request and the keys that answer it. */
function questionFor(request: ApprovalRequest, opts: TerminalApproverOptions, mark: (text: string) => string): { question: ApprovalQuestion; answers: Readonly<Record<string, [ApprovalDecision, string]>> } {
  if (request.tool === EXIT_PLAN_TOOL) return { question: planQuestion(request, { width: opts.width(), mark }), answers: PLAN_ANSWERS };
  return { question: approvalQuestion(request, { width: opts.width(), approvalsFile: opts.approvalsFile, mark }), answers: ANSWERS };
}

/** `y, a, n or d`. */
function keyList(answers: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(answers);
  return `${keys.slice(0, -1).join(", ")} or ${keys.at(-1)}`;
}

/** The answer, or Ctrl-C as soon as the turn is interrupted. */
function untilAborted(answer: Promise<string>, signal: AbortSignal | undefined): Promise<string> {
  if (!signal) return answer;
  if (signal.aborted) return Promise.resolve(CTRL_C);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(CTRL_C);
    signal.addEventListener("abort", onAbort, { once: true });
    void answer.then((text) => {
      signal.removeEventListener("abort", onAbort);
      resolve(text);
    });
  });
}
