// The approver that asks the person at the terminal: Allow "cmd"? [y]es once / [a]lways / [n]o / [d]eny always, one key, no Enter.
import { styleText } from "node:util";
import type { Approver } from "../deps.js";
import { ANSWERS, approvalQuestion, EXIT_PLAN_TOOL, PLAN_ANSWERS, planQuestion } from "./approval-question.js";
import type { LineInput } from "./line-input.js";
import { CTRL_C, CTRL_D } from "./terminal-keys.js";

/**
 * Asks on the terminal and takes one key: y, a, n or d (any other key asks again, with a hint). The request's text comes
 * from the model, so it is shown through `approvalQuestion` (escaped, whole) inside our colors; the answer is echoed as a
 * word. Ctrl-C or Esc answer "no"; end of input or an interrupt of the turn (`turnSignal`) answer "no" at once. An
 * exit_plan_mode request shows the plan and takes y (default mode), a (accept edits) or n (keep planning).
 * `width` is read at each question (the window may have been resized); `approvalsFile` is where "always" writes.
 */
export function terminalApprover(
  input: LineInput,
  out: { write(text: string): void },
  opts: { color: boolean; turnSignal: () => AbortSignal | undefined; width: () => number; approvalsFile: string },
): Approver {
  return async (request) => {
    const paint = (text: string): string => (opts.color ? styleText("yellow", text) : text);
    const mark = (text: string): string => (opts.color ? styleText("dim", text) : text);
    const signal = opts.turnSignal();
    const plan = request.tool === EXIT_PLAN_TOOL;
    const question = plan ? planQuestion(request, { width: opts.width(), mark }) : approvalQuestion(request, { width: opts.width(), approvalsFile: opts.approvalsFile, mark });
    const answers = plan ? PLAN_ANSWERS : ANSWERS;
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
      // Erase the prompt line and ask again with the keys in front (`y, a, n or d`).
      const keys = Object.keys(answers);
      prompt = `\r\x1b[K${paint(`(${keys.slice(0, -1).join(", ")} or ${keys.at(-1)}) `)}${paint(question.prompt)}`;
    }
  };
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
