// The question exit_plan_mode puts to the person at the terminal: the plan as text (escaped, wrapped, whole) and the mode to carry it out in.
import type { ApprovalRequest } from "../deps.js";
import type { ApprovalDecision } from "../types.js";
import type { ApprovalQuestion } from "./approval-question.js";
import { paintPieces, visibleLine, visiblePieces, wrapPieces } from "./visible-text.js";

/** The tool whose approval request is a plan. */
export const EXIT_PLAN_TOOL = "exit_plan_mode";

export const PLAN_CHOICES = "Leave plan mode? [y]es, default mode / [a]ccept edits / [n]o, keep planning ";

/** Each answer key, the decision the gate maps to a mode, and the words echoed after the question. */
export const PLAN_ANSWERS: Readonly<Record<string, [ApprovalDecision, string]>> = {
  y: ["allow_once", "yes, default mode"],
  a: ["allow_always", "accept edits"],
  n: ["deny_once", "no, keep planning"],
};

/** Blank lines in a row kept as they are; a longer run is one note, so a flood cannot push the plan off screen. */
const MAX_BLANK_RUN = 2;
const GUTTER = "  │ ";
const TAB = "    ";

/**
 * The plan of an exit_plan_mode request (its `input.plan`, else the request's text) under a header
 * naming who asks, one marked row per line, wrapped to `width`, every character the model wrote
 * escaped where a terminal would act on it; and the prompt with the three answers.
 */
export function planQuestion(request: ApprovalRequest, layout: { width: number; mark?: (text: string) => string }): ApprovalQuestion {
  const mark = layout.mark ?? ((t: string) => t);
  const given = (request.input as { plan?: unknown } | undefined)?.plan;
  const plan = typeof given === "string" ? given : request.command;
  const who = request.agent === undefined ? "The model" : `Subagent ${visibleLine(request.agent, 40, { mark })}`;
  return { lines: [`${who} has a plan and asks to leave plan mode to carry it out:`, ...planRows(plan, layout.width, mark)], prompt: PLAN_CHOICES };
}

function planRows(plan: string, width: number, mark: (t: string) => string): string[] {
  const room = Math.max(10, width - GUTTER.length);
  const lines = plan.replace(/\r\n?/g, "\n").replace(/\t/g, TAB).replace(/\n+$/, "").split("\n");
  const rows: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let blanks = 0;
    while (i + blanks < lines.length && lines[i + blanks]!.trim() === "") blanks++;
    if (blanks > MAX_BLANK_RUN) {
      rows.push(`${GUTTER}${mark(`⟨${blanks} blank lines⟩`)}`);
      i += blanks - 1;
      continue;
    }
    for (const row of wrapPieces(visiblePieces(lines[i]!), room)) rows.push(`${GUTTER}${paintPieces(row, { mark })}`.trimEnd());
  }
  return rows;
}
