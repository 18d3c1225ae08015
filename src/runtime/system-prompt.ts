// The system prompt, assembled the same way every turn so its bytes (and the prompt cache) stay stable.
import { readRegularFileSync } from "../fs/regular-file.js";
import { join } from "node:path";
import { cutMiddle } from "../content.js";
import type { AgentConfig } from "../types.js";

/** Largest part taken from one file (SOUL body, USER.md), in characters; longer ones keep head and tail. */
export const MAX_PROMPT_FILE_CHARS = 20_000;
/** The shared profile of the user, at the top of the workspace. */
export const USER_PROFILE_FILE = "USER.md";

/** What the system prompt is made of. Everything here must be stable across turns. */
export interface SystemPromptInput {
  agent: Pick<AgentConfig, "prompt">;
  /** The text of `workspace/USER.md`, when there is one. */
  userProfile?: string | undefined;
  /** Layer 1 of skills (`SkillLoader.listing()`); shown only when `load_skill` is offered. */
  skillsListing?: string | undefined;
  /** Names of the tools offered this turn; notes are written only for those present. */
  toolNames: readonly string[];
  /** Notes the offered tools carry (`Tool.systemNote`), in tool order; each distinct note is written once, last. */
  toolNotes?: readonly string[];
}

/**
 * Cuts a text longer than `maxChars` to its first 70% and last 30%, with a line in the middle
 * saying how much of which file was left out. Deterministic: equal input, equal output.
 */
export function capText(text: string, maxChars: number, label: string): string {
  return cutMiddle(text, maxChars, (cut) => `\n\n[… ${cut} characters of ${label} cut here …]\n\n`);
}

const SKILLS_INTRO =
  "Skills are instructions for particular kinds of task. When a request matches one below, call load_skill with its name before you start, then follow what it returns.";

function memoryNote(tools: ReadonlySet<string>): string {
  const parts = ["- Long-term memory is a set of notes shared by every agent."];
  if (tools.has("memory_search")) {
    parts.push("Before answering about the user, their projects or anything discussed earlier, call memory_search.");
  }
  if (tools.has("save_memory")) {
    parts.push(
      "When you learn something worth keeping (a preference, a decision, a fact that will matter later), save it with save_memory under a short, stable key; saving a key replaces its note, so merge with what it held.",
    );
  }
  return parts.join(" ");
}

// Fixed order, so the prompt does not change when the tools are listed in another order.
const TOOL_NOTES: ReadonlyArray<[names: readonly string[], note: (tools: ReadonlySet<string>) => string]> = [
  [["memory_search", "save_memory"], memoryNote],
  [
    ["read_file", "write_file", "edit_file"],
    () => "- Files: read a file before changing it; edit_file replaces one exact, unique passage, write_file a whole file. Relative paths start at the working directory.",
  ],
  [
    ["run_command"],
    () => "- Shell commands run behind a safety gate: some need the user's approval and may be refused. Prefer read-only commands, and say what a command will change before running it.",
  ],
];

function section(title: string, body: string): string {
  return `# ${title}\n\n${body}`;
}

/**
 * Builds the system prompt: the agent's SOUL body, then the user's profile, then the skills
 * listing, then short notes on the tools present. Pure and byte-stable: no dates, no counts
 * that change, fixed order. Changing facts (the time) belong in the newest user message.
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const tools = new Set(input.toolNames);
  const parts = [capText(input.agent.prompt.trim(), MAX_PROMPT_FILE_CHARS, "the agent's SOUL.md")];
  const profile = input.userProfile?.trim();
  if (profile) parts.push(section("About the user", capText(profile, MAX_PROMPT_FILE_CHARS, USER_PROFILE_FILE)));
  const listing = input.skillsListing?.trim();
  if (listing && tools.has("load_skill")) parts.push(section("Skills", `${SKILLS_INTRO}\n\n${listing}`));
  const notes = TOOL_NOTES.filter(([names]) => names.some((name) => tools.has(name))).map(([, note]) => note(tools));
  if (notes.length > 0) parts.push(section("Tools and memory", notes.join("\n")));
  parts.push(...new Set((input.toolNotes ?? []).map((note) => note.trim()).filter((note) => note !== "")));
  return parts.join("\n\n");
}

/** The text of `<workspaceDir>/USER.md`, or undefined when it is missing, blank or not a regular file. */
export function readUserProfile(workspaceDir: string): string | undefined {
  let text: string;
  try {
    // Synchronous: read on every turn, and small; a trip through the thread pool would cost more than the read.
    text = readRegularFileSync(join(workspaceDir, USER_PROFILE_FILE));
  } catch {
    return undefined;
  }
  return text.trim() ? text : undefined;
}
