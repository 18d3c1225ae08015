// What the three file tools share: their path rule and the path the gate granted, reading text safely, and clear messages for missing files.
import { stat } from "node:fs/promises";
import { ToolError } from "../errors.js";
import { readRegularFile } from "../fs/regular-file.js";
import type { Access, ToolContext } from "./define.js";

/** Files larger than this are not loaded whole for editing. */
export const MAX_EDIT_BYTES = 10 * 1024 * 1024;

/** The access of a file tool's call: the gate judges `path` (relative to the working directory) by the path rules. */
export function pathAccess(access: "read" | "write"): (input: { path: string }) => Access {
  return (input) => ({ path: input.path, ...(access === "write" && { write: true }) });
}

/**
 * The real path the gate granted this call (symlinks and `..` resolved), which the tool must
 * use instead of the input's. Without the gate's answer (run called directly) nothing is touched.
 */
export function grantedPath(context: ToolContext): string {
  const path = context.grant?.path;
  if (path === undefined) throw new ToolError("file tools run only after the gate has judged the path (through runToolUses)");
  return path;
}

/** The message for a path that does not exist, saying where relative paths start. */
export function describeMissing(path: string, cwd: string): string {
  return `${path} does not exist (relative paths start at ${cwd})`;
}

/**
 * Reads a whole text file for editing: a missing path, a directory, a file over
 * MAX_EDIT_BYTES or one with NUL bytes is a ToolError naming `shown`.
 */
export async function readTextForEdit(path: string, shown: string, cwd: string): Promise<string> {
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

/** Lines in a text as an editor counts them: a final newline does not start another line. */
export function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
