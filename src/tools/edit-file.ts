// edit_file: replaces one exact, unique occurrence of a string in a text file, atomically, and says where.
import * as z from "zod";
import { ToolError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { defineTool } from "./define.js";
import type { Tool } from "./define.js";
import { grantedPath, pathAccess, countLines, readTextForEdit } from "./file-access.js";

const editFileInput = z.object({
  path: z.string().min(1).describe("File to edit; relative paths start at the working directory"),
  old_string: z.string().describe("The exact text to replace; must occur exactly once (include surrounding lines to make it unique)"),
  new_string: z.string().describe("The text to put in its place"),
});

/** The edit_file tool. Absent, repeated or no-op replacements are ToolErrors that say how to fix the call. */
export function createEditFileTool(): Tool<z.infer<typeof editFileInput>> {
  return defineTool({
    name: "edit_file",
    description: "Replace one exact, unique occurrence of old_string with new_string in a text file. Cheaper than rewriting the file.",
    input: editFileInput,
    access: pathAccess("write"),
    async run(input, context) {
      if (input.old_string === "") throw new ToolError("old_string is empty; to create or replace a whole file use write_file");
      if (input.old_string === input.new_string) throw new ToolError("old_string and new_string are the same; nothing to change");
      const path = grantedPath(context);
      const text = await readTextForEdit(path, input.path, context.cwd);
      const at = text.indexOf(input.old_string);
      if (at === -1) throw new ToolError(notFound(input.path, text, input.old_string));
      const count = countOccurrences(text, input.old_string);
      if (count > 1) throw new ToolError(`old_string occurs ${count} times in ${input.path}; include more surrounding lines so it matches exactly once`);
      const updated = text.slice(0, at) + input.new_string + text.slice(at + input.old_string.length);
      try {
        await writeFileAtomic(path, updated);
      } catch (error) {
        throw new ToolError(`could not write ${input.path}: ${(error as Error).message}`);
      }
      const line = countLines(text.slice(0, at + 1));
      return `Edited ${input.path}: replaced ${countLines(input.old_string)} line(s) with ${countLines(input.new_string)} at line ${line}.`;
    },
  });
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) count++;
  return count;
}

function notFound(shown: string, text: string, needle: string): string {
  const hint = text.includes("\r\n") && needle.includes("\n") && !needle.includes("\r\n")
    ? " The file uses CRLF line endings; include the \\r characters."
    : " Check whitespace and indentation: read_file shows the exact text (without the line-number prefix).";
  return `old_string was not found in ${shown}.${hint}`;
}
