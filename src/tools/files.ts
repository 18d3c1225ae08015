// The file tools as one set: read_file, write_file and edit_file, each behind the gate's path check.
import type { AnyTool } from "./define.js";
import { createEditFileTool } from "./edit-file.js";
import { createReadFileTool } from "./read-file.js";
import { createWriteFileTool } from "./write-file.js";

export { createEditFileTool } from "./edit-file.js";
export { createReadFileTool, MAX_READ_BYTES, MAX_READ_LINES } from "./read-file.js";
export { createWriteFileTool } from "./write-file.js";

/**
 * `[read_file, write_file, edit_file]`. Each asks `context.permissions.checkPath`
 * before touching a path (relative paths start at `context.cwd`); refusals and
 * file errors throw ToolErrors, which the loop turns into is_error results.
 */
export function createFileTools(): AnyTool[] {
  return [createReadFileTool(), createWriteFileTool(), createEditFileTool()];
}
