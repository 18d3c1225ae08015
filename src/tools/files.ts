// The file tools as one set: read_file, write_file (a whole file, atomically) and edit_file (one exact, unique passage), each judged by the gate's path rule.
import { stat } from "node:fs/promises";
import * as z from "zod";
import { ToolError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readRegularFile } from "../fs/regular-file.js";
import { defineTool, type AnyTool, type Tool } from "./define.js";
import { describeMissing, grantedPath, pathAccess } from "./file-access.js";
import { createReadFileTool } from "./read-file.js";

export { createReadFileTool, MAX_READ_BYTES, MAX_READ_LINES } from "./read-file.js";

/** Files larger than this are not loaded whole for editing. */
const MAX_EDIT_BYTES = 10 * 1024 * 1024;

/** `[read_file, write_file, edit_file]`: the gate judges each call's path before `run`, which touches only the real path granted. */
export function createFileTools(): AnyTool[] {
  return [createReadFileTool(), createWriteFileTool(), createEditFileTool()];
}

const writeFileInput = z.object({
  path: z.string().min(1).describe("File to write; relative paths start at the working directory"),
  content: z.string().describe("The whole new content of the file"),
});

/** The write_file tool: temp file and rename, so readers never see a half-written file. */
export function createWriteFileTool(): Tool<z.infer<typeof writeFileInput>> {
  return defineTool({
    name: "write_file",
    description: "Write a whole file (created with its folders if missing, replaced if present). To change part of a file, prefer edit_file.",
    input: writeFileInput,
    access: pathAccess("write"),
    async run(input, context) {
      const path = grantedPath(context);
      const existing = await stat(path).catch(() => null);
      if (existing?.isDirectory()) throw new ToolError(`${input.path} is a directory; give a file path`);
      await write(path, input.path, input.content);
      const what = existing === null ? "created" : "replaced";
      return `Wrote ${Buffer.byteLength(input.content, "utf8")} bytes (${countLines(input.content)} lines) to ${input.path} (${what}).`;
    },
  });
}

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
      const { old_string: old, new_string: replacement } = input;
      if (old === "") throw new ToolError("old_string is empty; to create or replace a whole file use write_file");
      if (old === replacement) throw new ToolError("old_string and new_string are the same; nothing to change");
      const path = grantedPath(context);
      const text = await readTextForEdit(path, input.path, context.cwd);
      const at = text.indexOf(old);
      if (at === -1) throw new ToolError(notFound(input.path, text, old));
      const count = text.split(old).length - 1;
      if (count > 1) throw new ToolError(`old_string occurs ${count} times in ${input.path}; include more surrounding lines so it matches exactly once`);
      await write(path, input.path, text.slice(0, at) + replacement + text.slice(at + old.length));
      return `Edited ${input.path}: replaced ${countLines(old)} line(s) with ${countLines(replacement)} at line ${countLines(text.slice(0, at + 1))}.`;
    },
  });
}

async function write(path: string, shown: string, content: string): Promise<void> {
  try {
    await writeFileAtomic(path, content);
  } catch (error) {
    throw new ToolError(`could not write ${shown}: ${(error as Error).message}`);
  }
}

/** A whole text file for editing: a missing path, a folder, a file over MAX_EDIT_BYTES or one with NUL bytes is a ToolError naming `shown`. */
async function readTextForEdit(path: string, shown: string, cwd: string): Promise<string> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new ToolError(error.code === "ENOENT" ? `${describeMissing(shown, cwd)}; use write_file to create it` : `cannot read ${shown}: ${error.message}`);
  });
  if (info.isDirectory()) throw new ToolError(`${shown} is a directory, not a file`);
  // A FIFO or a device would never end the read (or never start it): only a regular file is edited.
  if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
  if (info.size > MAX_EDIT_BYTES) throw new ToolError(`${shown} is ${info.size} bytes, more than edit_file handles (${MAX_EDIT_BYTES}); use write_file or run_command`);
  // Read through a non-blocking open: a FIFO put in the file's place since the stat is refused, not waited on.
  const bytes = await readRegularFile(path).catch((error: Error) => {
    throw new ToolError(`cannot read ${shown}: ${error.message}`);
  });
  if (bytes.subarray(0, 8_192).includes(0)) throw new ToolError(`${shown} looks like a binary file; edit_file only edits text`);
  return bytes.toString("utf8");
}

function notFound(shown: string, text: string, needle: string): string {
  const crlf = text.includes("\r\n") && needle.includes("\n") && !needle.includes("\r\n");
  const hint = crlf ? "The file uses CRLF line endings; include the \\r characters." : "Check whitespace and indentation: read_file shows the exact text (without the line-number prefix).";
  return `old_string was not found in ${shown}. ${hint}`;
}

/** Lines in a text as an editor counts them: a final newline does not start another line. */
function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
