// The project's instructions to agents: AGENTS.md (and CLAUDE.md, for people coming from Claude Code) in the working folder and
// its parents up to the repository's root, read once per runtime so the system prompt stays byte-stable.
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { orFallback } from "../errors.js";
import { capText, MAX_PROMPT_FILE_CHARS, readPromptFile } from "./system-prompt.js";

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
