// Questions at the terminal: approval (a command or tool call, or exit_plan_mode's plan, shown whole, escaped, wrapped, every line marked) and its one-key
// answer; an MCP server's form, each field asked in turn (a key for yes/no and choices, a line for text and numbers), then send, decline or cancel.
import { styleText } from "node:util";
import type { ApprovalRequest, Approver } from "../deps.js";
import type { Elicit, ElicitationAnswer, ElicitationRequest } from "../mcp/host.js";
import type { ApprovalDecision } from "../types.js";
import type { LineInput } from "./line-input.js";
import { CTRL_C, CTRL_D } from "./terminal-keys.js";
import { columns, paintPieces, visibleLine, visiblePieces, visibleText, wrapPieces, type VisiblePiece } from "./visible-text.js";

/** Lines printed before the prompt, and the prompt line itself (what the answer is typed after). */
export type ApprovalQuestion = { lines: string[]; prompt: string };

/** Each answer key, the decision it makes and the words echoed after the question. */
type Answers = Readonly<Record<string, [ApprovalDecision, string]>>;

const EXIT_PLAN_TOOL = "exit_plan_mode";
const ANSWERS: Answers = { y: ["allow_once", "yes"], a: ["allow_always", "always"], n: ["deny_once", "no"], d: ["deny_always", "deny always"] };
/** For a plan, the gate maps the decision to the mode to carry it out in. */
const PLAN_ANSWERS: Answers = { y: ["allow_once", "yes, default mode"], a: ["allow_always", "accept edits"], n: ["deny_once", "no, keep planning"] };
const ANSWER_CHOICES = "[y]es once / [a]lways / [n]o / [d]eny always ";
const PLAN_CHOICES = "Leave plan mode? [y]es, default mode / [a]ccept edits / [n]o, keep planning ";
/** Blank lines in a row shown as they are; a longer run is one note, so a flood cannot push the real lines off screen. */
const MAX_BLANK_RUN = 2;
/** Spaces in a row shown as one note, so padding cannot push the rest of a line out of view. */
const MIN_SPACE_RUN = 16;
const PLAN_GUTTER = "  │ ";

type Mark = (text: string) => string;

/**
 * One key at the terminal: y, a, n or d (another asks again, with a hint), echoed as a word; the request is shown by `approvalQuestion`. Ctrl-C or Esc
 * stop the turn (`interrupt`), as in Claude Code, rather than answer "no" and let the model try another way; end of input or an interrupted turn
 * (`turnSignal`) answer "no". A plan takes y (default mode), a (accept edits) or n. `width` is read at each question; "always" writes `approvalsFile`.
 */
export function terminalApprover(
  input: LineInput,
  out: { write(text: string): void },
  opts: { color: boolean; turnSignal: () => AbortSignal | undefined; interrupt: () => void; width: () => number; approvalsFile: string },
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
      const key = await input.askKey(prompt, signal);
      if (key === CTRL_C && !signal?.aborted) {
        // The call is refused and the turn ends with it: no further request is sent.
        opts.interrupt();
        out.write("stop\n");
        return "deny_once";
      }
      if (signal?.aborted || key === CTRL_C || key === CTRL_D) {
        out.write("no\n");
        return "deny_once";
      }
      const answer = answers[key];
      if (answer) {
        out.write(`${answer[1]}\n`);
        return answer[0];
      }
      const keys = Object.keys(answers);
      prompt = `\r\x1b[K${paint(`(${keys.slice(0, -1).join(", ")} or ${keys.at(-1)}) `)}${paint(question.prompt)}`;
    }
  };
}

/**
 * The question for one request: inline (`Allow "npm test"? ...`) when it is one line of plain text that fits, else whole above the prompt in numbered,
 * wrapped rows, escapes counted; a tool call as `name {input as JSON}`. Says what "always" records; names a subagent asker.
 */
export function approvalQuestion(request: ApprovalRequest, layout: { width: number; approvalsFile: string; mark?: Mark }): ApprovalQuestion {
  const mark = layout.mark ?? ((t: string) => t);
  // A subagent's question says whose it is: the person is answering for a child they did not start themselves.
  const asker = request.agent === undefined ? "" : `Subagent ${visibleLine(request.agent, 40, { mark })}: `;
  const header = `${asker}${visibleLine(request.tool, 40, { mark })} needs approval: ${visibleLine(request.reason, 400, { mark })}`;
  const commandLines = request.command.split("\n").map((line) => spaceRuns(visiblePieces(line)));
  // Escaped characters start with a backslash; the other marked pieces are our notes on long blank runs.
  const escapes = commandLines.flat().filter((p) => p.escaped && p.text.startsWith("\\")).length;
  const only = commandLines.length === 1 ? commandLines[0]! : undefined;
  // A tool call is shown as `name {input as JSON}`: its own quotes would make quoting it again unreadable.
  const call = request.input !== undefined;
  const inline = call ? `Allow ${paintPieces(only ?? [])}? ${ANSWER_CHOICES}` : `Allow "${paintPieces(only ?? [])}"? ${ANSWER_CHOICES}`;
  const saved = savedNote(request, layout, mark);
  if (only && !only.some((p) => p.escaped) && columns(inline) <= layout.width) return { lines: [header, saved], prompt: inline };
  const what = call ? "the call" : "the command";
  const count = commandLines.length === 1 ? "one line" : `${commandLines.length} lines`;
  const warning = escapes > 0 ? `; ${escapes} control or invisible character${escapes === 1 ? " is" : "s are"} shown as \\x.. or \\u.. escapes` : "";
  const rows = numberedRows(commandLines, layout.width, mark);
  return { lines: [header, `  ${what} (${count}, ${[...request.command].length} characters${warning}):`, ...rows, saved], prompt: `Allow ${what} above? ${ANSWER_CHOICES}` };
}

/** The plan of an exit_plan_mode request (`input.plan`, else the request's text), escaped and wrapped to `width` in marked rows under a header naming who asks; and the three-answer prompt. */
export function planQuestion(request: ApprovalRequest, layout: { width: number; mark?: Mark }): ApprovalQuestion {
  const mark = layout.mark ?? ((t: string) => t);
  const given = (request.input as { plan?: unknown } | undefined)?.plan;
  const plan = typeof given === "string" ? given : request.command;
  const who = request.agent === undefined ? "The model" : `Subagent ${visibleLine(request.agent, 40, { mark })}`;
  const room = Math.max(10, layout.width - PLAN_GUTTER.length);
  const lines = plan.replace(/\r\n?/g, "\n").replace(/\t/g, "    ").replace(/\n+$/, "").split("\n");
  const rows = foldBlankRuns(
    lines,
    (line) => line.trim() === "",
    (line) => wrapPieces(visiblePieces(line), room).map((row) => `${PLAN_GUTTER}${paintPieces(row, { mark })}`.trimEnd()),
    (_, count) => `${PLAN_GUTTER}${mark(`⟨${count} blank lines⟩`)}`,
  );
  return { lines: [`${who} has a plan and asks to leave plan mode to carry it out:`, ...rows], prompt: PLAN_CHOICES };
}

/** The rows of `lines`; a run of more than MAX_BLANK_RUN blank lines is one `note` row. */
function foldBlankRuns<T>(lines: readonly T[], blank: (line: T) => boolean, rows: (line: T, index: number) => string[], note: (from: number, count: number) => string): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let count = 0;
    while (i + count < lines.length && blank(lines[i + count]!)) count++;
    if (count <= MAX_BLANK_RUN) out.push(...rows(lines[i]!, i));
    else {
      out.push(note(i, count));
      i += count - 1;
    }
  }
  return out;
}

/** `  1 │ text`, continuation rows `    ┆ text`. */
function numberedRows(lines: VisiblePiece[][], width: number, mark: Mark): string[] {
  const digits = String(lines.length).length;
  const gutter = (n: string, bar: string): string => `  ${n.padStart(digits)} ${bar} `;
  const room = Math.max(10, width - columns(gutter("", "│")));
  return foldBlankRuns(
    lines,
    (line) => line.every((p) => !p.escaped && p.text.trim() === ""),
    (line, i) => wrapPieces(line, room).map((row, j) => `${j === 0 ? gutter(String(i + 1), "│") : gutter("", "┆")}${paintPieces(row, { mark })}`),
    (i, count) => `${gutter("", "┆")}${mark(`⟨lines ${i + 1}–${i + count} are blank⟩`)}`,
  );
}

/** What the two "always" answers record: for commands, the exact entry of the approvals file. */
function savedNote(request: ApprovalRequest, layout: { width: number; approvalsFile: string }, mark: Mark): string {
  const saved = request.alwaysSaves;
  if (saved === undefined) {
    const what = request.tool === "run_command" ? "command (too broad to save)" : request.tool === "write_file" ? "write" : "read";
    return `  [a]lways allows this ${what} until miniclaw exits; nothing is saved`;
  }
  const file = visibleText(layout.approvalsFile, { mark });
  const entry = visibleText(JSON.stringify(saved), { mark });
  if (request.input !== undefined) return `  [a]lways adds the tool name ${entry} to "allowed" in ${file}; [d]eny always adds it to "denied"`;
  // The entry as the file will hold it (JSON), when it fits on a line; otherwise the block above is the entry.
  const trimmed = saved === request.command ? "" : " (without its leading and trailing blanks)";
  const what = columns(entry) + 20 <= layout.width ? `the entry ${entry}` : `the whole command above${trimmed}, exactly as shown, as one entry`;
  return `  [a]lways adds ${what} to "allowed" in ${file}; [d]eny always adds it to "denied"`;
}

/** Long runs of spaces inside a line become one marked note with their count. */
function spaceRuns(pieces: VisiblePiece[]): VisiblePiece[] {
  return pieces.flatMap((piece) => {
    if (piece.escaped) return [piece];
    return piece.text
      .split(new RegExp(`( {${MIN_SPACE_RUN},})`))
      .filter((t) => t !== "")
      .map((text) => (text.startsWith(" ".repeat(MIN_SPACE_RUN)) ? { text: `⟨${text.length} spaces⟩`, escaped: true } : { text, escaped: false }));
  });
}

type Field = { type?: string; title?: string; description?: string; default?: unknown; enum?: unknown[]; oneOf?: Array<{ const?: unknown; title?: string }>; minimum?: number; maximum?: number };
type Out = { write(text: string): void };
/** Nobody answered a field: the whole form is cancelled. */
const CANCEL = Symbol("cancel");

/** Elicitation at the terminal: each field asked in turn (Enter keeps its default, Ctrl-C cancels), then send/decline/cancel; a URL is asked about; a turn interrupted cancels. Escaped. */
export function terminalElicit(input: LineInput, out: Out, opts: { color: boolean }): Elicit {
  const paint = (text: string): string => (opts.color ? styleText("cyan", text) : text);
  return async (request, signal) => {
    out.write(`${paint(`MCP server "${request.server}" asks: `)}${visibleLine(request.message, 400)}\n`);
    if (request.mode === "url") return askUrl(input, out, request, paint);
    const content: Record<string, unknown> = {};
    const schema = (request.schema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      if (signal.aborted) return { action: "cancel" };
      const value = await askField(input, out, name, field, (schema.required ?? []).includes(name), paint);
      if (value === CANCEL) return cancelled(out);
      if (value !== undefined) content[name] = value;
    }
    const key = await input.askKey(paint("Send it? [s]end / [d]ecline / [c]ancel "));
    out.write("\n");
    if (key === "s" || key === "y") return { action: "accept", content };
    return key === "d" || key === "n" ? { action: "decline" } : cancelled(out);
  };
}

async function askUrl(input: LineInput, out: Out, request: ElicitationRequest, paint: (t: string) => string): Promise<ElicitationAnswer> {
  out.write(`  ${visibleLine(request.url ?? "", 400)}\n`);
  const key = await input.askKey(paint("Open it? [y]es (I open it) / [d]ecline / [c]ancel "));
  out.write("\n");
  return key === "y" ? { action: "accept" } : key === "d" || key === "n" ? { action: "decline" } : cancelled(out);
}

/** One field's value: undefined when left empty (the default applies), CANCEL on Ctrl-C or the end of input. */
async function askField(input: LineInput, out: Out, name: string, field: Field, required: boolean, paint: (t: string) => string): Promise<unknown> {
  const label = `${visibleLine(field.title ?? name, 60)}${field.description ? ` (${visibleLine(field.description, 120)})` : ""}${field.default !== undefined ? ` [${visibleLine(String(field.default), 40)}]` : ""}${required ? "" : " (optional)"}`;
  const choices = field.enum ?? field.oneOf?.map((o) => o.const);
  if (field.type === "boolean") {
    const key = await input.askKey(paint(`${label} [y/n] `));
    out.write("\n");
    return key === CTRL_C || key === CTRL_D ? CANCEL : key === "y" ? true : key === "n" ? false : undefined;
  }
  if (choices && choices.length > 0 && choices.length <= 9) {
    out.write(`${paint(label)}\n${choices.map((c, i) => `  ${i + 1}. ${visibleLine(String(field.oneOf?.[i]?.title ?? c), 80)}`).join("\n")}\n`);
    const key = await input.askKey(paint("Choose a number (Enter: none or the default) "));
    out.write("\n");
    return key === CTRL_C || key === CTRL_D ? CANCEL : choices[Number(key) - 1];
  }
  for (;;) {
    const line = await input.next(paint(`${label}: `));
    if (line === undefined) return CANCEL;
    const text = line.trim();
    if (text === "") return required && field.default === undefined ? (out.write("  (required)\n"), askField(input, out, name, field, required, paint)) : undefined;
    if (field.type !== "number" && field.type !== "integer") return text;
    const value = Number(text);
    if (Number.isFinite(value) && (field.type === "number" || Number.isInteger(value))) return value;
    out.write(`  (a${field.type === "integer" ? " whole" : ""} number, please)\n`);
  }
}

function cancelled(out: Out): ElicitationAnswer {
  out.write("  (cancelled)\n");
  return { action: "cancel" };
}
