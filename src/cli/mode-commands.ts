// The REPL's /mode and /queue: the permission mode of every turn from the next tool call, and what a line typed during a turn does.
import type { PermissionMode } from "../gate/context.js";
import { clip } from "./render.js";

/** What a line typed while a turn runs does: `steer` joins the running turn's next request; `followup` waits for the turn's end. */
export type QueueMode = "steer" | "followup";

/** What /mode and /queue read and change: the assistant's mode (shared by every turn of the process) and the REPL's queue mode. */
export interface ModeState {
  assistant: { readonly permissionMode: PermissionMode; setPermissionMode(mode: PermissionMode): void };
  queue: QueueMode;
}

/** The modes in the order /mode lists them, with what each lets run. */
const MODE_MEANINGS: ReadonlyArray<[PermissionMode, string]> = [
  ["default", "safe commands run, and files inside the working folder and workspace are written unasked; anything else is asked about"],
  ["acceptEdits", "file writes and edits inside the working folder and workspace run unasked (as in default); commands that may change something are asked about"],
  ["plan", "only what reads runs; the model investigates and proposes a plan, which you approve to leave plan mode"],
  ["dontAsk", "what would be asked about is refused without asking"],
  ["bypassPermissions", "everything runs unasked except what exec-approvals.json denies"],
];

/**
 * `/mode` shows the mode and what it lets run; `/mode MODE` (any of the five, in any case) sets it
 * for every turn from the next tool call on, a running turn included. The user typed it, so any
 * mode goes, bypassPermissions too. Returns the lines to print.
 */
export function modeCommand(args: string, state: ModeState): string {
  const word = args.trim();
  if (word === "") return `${describeMode(state.assistant.permissionMode)}\nModes: ${MODE_MEANINGS.map(([mode]) => mode).join(", ")}. /mode MODE switches.`;
  const mode = MODE_MEANINGS.map(([name]) => name).find((name) => name.toLowerCase() === word.toLowerCase());
  if (mode === undefined) {
    return `/mode ${clip(word, 40)}: must be one of ${MODE_MEANINGS.map(([name]) => name).join(", ")}. Usage: /mode [MODE]`;
  }
  const previous = state.assistant.permissionMode;
  state.assistant.setPermissionMode(mode);
  if (mode === previous) return `${describeMode(mode)} (unchanged)`;
  return `${describeMode(mode)} From the next tool call on.`;
}

/** `Permission mode: plan: only what reads runs; ….` */
export function describeMode(mode: PermissionMode): string {
  const meaning = MODE_MEANINGS.find(([name]) => name === mode)?.[1] ?? "";
  return `Permission mode: ${mode}: ${meaning}.`;
}

/** `/queue` says what a line typed during a turn does; `/queue steer` and `/queue followup` choose. Returns the line to print. */
export function queueCommand(args: string, state: ModeState): string {
  const word = args.trim().toLowerCase();
  if (word === "steer" || word === "followup") state.queue = word;
  else if (word !== "") return "Usage: /queue steer|followup";
  return state.queue === "steer"
    ? "Lines typed while a turn runs steer it: each joins its next request (/queue followup makes them wait for the turn's end)."
    : "Lines typed while a turn runs wait for it to end, then go as messages of their own (/queue steer sends them into the running turn).";
}

/**
 * What the REPL says when it opens a session whose file last recorded `recorded`: plan, acceptEdits
 * and dontAsk are taken up again; bypassPermissions is not (only the user enters it, each time);
 * default, or nothing recorded, needs no word. The mode to start in, and the line to print.
 */
export function restoredMode(recorded: PermissionMode | undefined): { mode?: PermissionMode; note?: string } {
  if (recorded === undefined || recorded === "default") return {};
  if (recorded === "bypassPermissions") {
    return { note: "This session was last in bypassPermissions mode, which is never restored: starting in default (/mode bypassPermissions enters it again)." };
  }
  return { mode: recorded, note: `Permission mode: ${recorded}, as this session last recorded (/mode default leaves it).` };
}
