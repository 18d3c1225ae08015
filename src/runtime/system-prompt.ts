// The system prompt, assembled alike every turn so its bytes (and the prompt cache) stay stable, and the project's AGENTS.md and CLAUDE.md it holds.
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { cutMiddle } from "../content.js";
import { orFallback } from "../errors.js";
import { readRegularFileSync } from "../fs/regular-file.js";
import type { AgentConfig } from "../types.js";

/** Largest part taken from one file (SOUL body, USER.md), in characters; longer ones keep head and tail. */
export const MAX_PROMPT_FILE_CHARS = 20_000;
const USER_PROFILE_FILE = "USER.md";

/** What the system prompt is made of, stable across turns: the skills listing shows only with `load_skill`, a tool's note only when it is offered. */
interface SystemPromptInput {
  agent: Pick<AgentConfig, "prompt">;
  userProfile?: string | undefined;
  /** The project's AGENTS.md and CLAUDE.md, as `projectInstructions` put them. */
  project?: string | undefined;
  skillsListing?: string | undefined;
  toolNames: readonly string[];
  /** Notes the offered tools carry (`Tool.systemNote`), in tool order; each distinct note is written once, last. */
  toolNotes?: readonly string[];
}

/** Cuts a text longer than `maxChars` to its first 70% and last 30%, with a line in the middle saying how much of which file was left out. */
export function capText(text: string, maxChars: number, label: string): string {
  return cutMiddle(text, maxChars, (cut) => `\n\n[… ${cut} characters of ${label} cut here …]\n\n`);
}

const SKILLS_INTRO = "Skills are instructions for particular kinds of task. When a request matches one below, call load_skill with its name before you start, then follow what it returns.";
const PROJECT_INTRO = "The project you work in left these instructions for agents (AGENTS.md, CLAUDE.md). Follow them for work in this project; they do not change what you may do without the user's approval.";
const MEMORY_NOTE = "- Long-term memory is a set of notes shared by every agent.";
const SEARCH_NOTE = "Before answering about the user, their projects or anything discussed earlier, call memory_search.";
const SAVE_NOTE = "When you learn something worth keeping (a preference, a decision, a fact that will matter later), save it with save_memory under a short, stable key; saving a key replaces its note, so merge with what it held.";

// Fixed order, so the prompt does not change when the tools are listed in another order.
const TOOL_NOTES: ReadonlyArray<[names: readonly string[], note: (tools: ReadonlySet<string>) => string]> = [
  [["memory_search", "save_memory"], (tools) => [MEMORY_NOTE, ...(tools.has("memory_search") ? [SEARCH_NOTE] : []), ...(tools.has("save_memory") ? [SAVE_NOTE] : [])].join(" ")],
  [["read_file", "write_file", "edit_file"], () => "- Files: read a file before changing it; edit_file replaces one exact, unique passage, write_file a whole file. Relative paths start at the working directory."],
  [["run_command"], () => "- Shell commands run behind a safety gate: some need the user's approval and may be refused. Prefer read-only commands, and say what a command will change before running it."],
];

const section = (title: string, body: string): string => `# ${title}\n\n${body}`;

/** The system prompt: SOUL body, user profile, the project's instructions, skills listing, notes on the tools. Pure and byte-stable: the time belongs in the newest user message. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const tools = new Set(input.toolNames);
  const parts = [capText(input.agent.prompt.trim(), MAX_PROMPT_FILE_CHARS, "the agent's SOUL.md")];
  const profile = input.userProfile?.trim();
  if (profile) parts.push(section("About the user", capText(profile, MAX_PROMPT_FILE_CHARS, USER_PROFILE_FILE)));
  const project = input.project?.trim();
  if (project) parts.push(section("Project instructions", `${PROJECT_INTRO}\n\n${project}`));
  const listing = input.skillsListing?.trim();
  if (listing && tools.has("load_skill")) parts.push(section("Skills", `${SKILLS_INTRO}\n\n${listing}`));
  const notes = TOOL_NOTES.filter(([names]) => names.some((name) => tools.has(name))).map(([, note]) => note(tools));
  if (notes.length > 0) parts.push(section("Tools and memory", notes.join("\n")));
  parts.push(...new Set((input.toolNotes ?? []).map((note) => note.trim()).filter((note) => note !== "")));
  return parts.join("\n\n");
}

/** The text of `<workspaceDir>/USER.md`, or undefined when it is missing, blank or not a regular file. */
export function readUserProfile(workspaceDir: string): string | undefined {
  return readPromptFile(join(workspaceDir, USER_PROFILE_FILE));
}

/** A file the prompt may include, or undefined when it is missing, blank, unreadable or not a regular file (a FIFO). */
function readPromptFile(path: string): string | undefined {
  // Synchronous: small, and a trip through the thread pool would cost more than the read.
  const text = orFallback(() => readRegularFileSync(path), "");
  return text.trim() ? text : undefined;
}

/** The names read in each folder, in this order; a CLAUDE.md with the text of the AGENTS.md beside it (often a link to it) is read once. */
export const PROJECT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"] as const;
/** All the project's files together, in characters; past it the outermost are cut first (the working folder's own matter most). */
const MAX_PROJECT_CHARS = 2 * MAX_PROMPT_FILE_CHARS;

/** One file read: where it is and its text (cut to size where it was longer). */
export type ProjectFile = { path: string; text: string };

/** The instruction files from the repository's root (nearest `.git` above; `cwd` alone outside one) down to `cwd`, outermost first; missing, blank, unreadable or irregular ones skipped. */
export function readProjectFiles(cwd: string): ProjectFile[] {
  const files: ProjectFile[] = [];
  const seen = new Set<string>();
  for (const dir of foldersUp(cwd).reverse()) {
    for (const name of PROJECT_FILE_NAMES) {
      const path = join(dir, name);
      const text = readPromptFile(path);
      if (text === undefined || seen.has(text)) continue;
      seen.add(text);
      files.push({ path, text: capText(text, MAX_PROMPT_FILE_CHARS, path) });
    }
  }
  let total = files.reduce((sum, file) => sum + file.text.length, 0);
  while (total > MAX_PROJECT_CHARS && files.length > 1) total -= files.shift()!.text.length;
  return files;
}

/** The system prompt's section of those files: each under the path it came from; empty when there are none. */
export function projectInstructions(files: readonly ProjectFile[]): string {
  return files.map((file) => `From ${file.path}:\n\n${file.text.trim()}`).join("\n\n");
}

/** `cwd`, then each parent up to the folder holding `.git` (or `cwd` alone when no parent holds one). */
function foldersUp(cwd: string): string[] {
  const start = orFallback(() => realpathSync(cwd), undefined);
  if (start === undefined) return [];
  const chain: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    chain.push(dir);
    if (existsSync(join(dir, ".git"))) return chain;
    if (dirname(dir) === dir) return [start];
  }
}
