// The approval question as printed: the whole command or tool call (escaped, wrapped, every line marked) and what "always" would save.
import type { ApprovalRequest } from "../deps.js";
import { columns, paintPieces, visibleLine, visiblePieces, visibleText, wrapPieces, type VisiblePiece } from "./visible-text.js";

export const ANSWER_CHOICES = "[y]es once / [a]lways / [n]o / [d]eny always ";

/** Where the question goes and how escapes are painted. */
export interface QuestionLayout {
  /** Terminal columns; lines are wrapped to this, never cut. */
  width: number;
  /** The approvals file "always" writes to, named in the question. */
  approvalsFile: string;
  /** Paints an escaped character (dim on a color terminal). */
  mark?: (text: string) => string;
}

/** Lines printed before the prompt, and the prompt line itself (what the answer is typed after). */
export interface ApprovalQuestion {
  lines: string[];
  prompt: string;
}

/** Blank lines in a row beyond which the run is shown as one note, so a flood cannot push the real lines off screen. */
const MAX_BLANK_RUN = 2;
/** Spaces in a row shown as one note, so padding cannot push the rest of a line out of view. */
const MIN_SPACE_RUN = 16;

/**
 * Builds the question for one request. A one-line command of plain printable text that
 * fits is asked inline (`Allow "npm test"? ...`); anything else (several lines, control
 * or invisible characters, too long) is shown whole above the prompt, one marked row per
 * line and wrapped rows marked as continuations, with a note counting the escaped
 * characters. A call of another tool (`request.input` set) is asked the same way, as
 * `name {input as JSON}`, and "always" records the tool's name. Always says what
 * [a]lways and [d]eny always would record. A subagent's request (`request.agent`) is named in the header.
 */
export function approvalQuestion(request: ApprovalRequest, layout: QuestionLayout): ApprovalQuestion {
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
  if (only && !only.some((p) => p.escaped) && columns(inline) <= layout.width) {
    return { lines: [header, ...savedNote(request, layout, mark)], prompt: inline };
  }
  const what = call ? "the call" : "the command";
  const count = commandLines.length === 1 ? "one line" : `${commandLines.length} lines`;
  const warning = escapes > 0 ? `; ${escapes} control or invisible character${escapes === 1 ? " is" : "s are"} shown as \\x.. or \\u.. escapes` : "";
  return {
    lines: [header, `  ${what} (${count}, ${[...request.command].length} characters${warning}):`, ...numberedRows(commandLines, layout.width, mark), ...savedNote(request, layout, mark)],
    prompt: `Allow ${what} above? ${ANSWER_CHOICES}`,
  };
}

/** `  1 │ text`, continuation rows `    ┆ text`; runs of blank lines folded into one note. */
function numberedRows(lines: VisiblePiece[][], width: number, mark: (t: string) => string): string[] {
  const digits = String(lines.length).length;
  const gutter = (n: string, bar: string): string => `  ${n.padStart(digits)} ${bar} `;
  const room = Math.max(10, width - columns(gutter("", "│")));
  const rows: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const blanks = countBlank(lines, i);
    if (blanks > MAX_BLANK_RUN) {
      rows.push(`${gutter("", "┆")}${mark(`⟨lines ${i + 1}–${i + blanks} are blank⟩`)}`);
      i += blanks - 1;
      continue;
    }
    wrapPieces(lines[i]!, room).forEach((row, j) => rows.push(`${j === 0 ? gutter(String(i + 1), "│") : gutter("", "┆")}${paintPieces(row, { mark })}`));
  }
  return rows;
}

/** What the two "always" answers record: for commands, the exact entry of the approvals file. */
function savedNote(request: ApprovalRequest, layout: QuestionLayout, mark: (t: string) => string): string[] {
  const saved = request.alwaysSaves;
  if (saved === undefined) {
    const what = request.tool === "run_command" ? "command (too broad to save)" : request.tool === "write_file" ? "write" : "read";
    return [`  [a]lways allows this ${what} until miniclaw exits; nothing is saved`];
  }
  const file = visibleText(layout.approvalsFile, { mark });
  if (request.input !== undefined) {
    return [`  [a]lways adds the tool name ${visibleText(JSON.stringify(saved), { mark })} to "allowed" in ${file}; [d]eny always adds it to "denied"`];
  }
  // The entry as the file will hold it (JSON), when it fits on a line; otherwise the block above is the entry.
  const entry = visibleText(JSON.stringify(saved), { mark });
  const trimmed = saved === request.command ? "" : " (without its leading and trailing blanks)";
  const what = columns(entry) + 20 <= layout.width ? `the entry ${entry}` : `the whole command above${trimmed}, exactly as shown, as one entry`;
  return [`  [a]lways adds ${what} to "allowed" in ${file}; [d]eny always adds it to "denied"`];
}

function countBlank(lines: VisiblePiece[][], from: number): number {
  let n = 0;
  while (from + n < lines.length && lines[from + n]!.every((p) => !p.escaped && p.text.trim() === "")) n++;
  return n;
}

/** Long runs of spaces inside a line become one marked note with their count. */
function spaceRuns(pieces: VisiblePiece[]): VisiblePiece[] {
  return pieces.flatMap((piece) => {
    if (piece.escaped) return [piece];
    return piece.text.split(new RegExp(`( {${MIN_SPACE_RUN},})`)).filter((t) => t !== "").map((text) =>
      text.startsWith(" ".repeat(MIN_SPACE_RUN)) ? { text: `⟨${text.length} spaces⟩`, escaped: true } : { text, escaped: false });
  });
}
