// The file tools as one set: read_file, write_file and edit_file, each judged by the gate's path rule.
import type { AnyTool } from "./define.js";
import { createEditFileTool } from "./edit-file.js";
import { createReadFileTool } from "./read-file.js";
import { createWriteFileTool } from "./write-file.js";

export { createEditFileTool } from "./edit-file.js";
export { createReadFileTool, MAX_READ_BYTES, MAX_READ_LINES } from "./read-file.js";
export { createWriteFileTool } from "./write-file.js";

/**
 * `[read_file, write_file, edit_file]`. Each declares the path rule, so the dispatcher
 * asks `context.permissions.checkPath` before `run` (relative paths start at
 * `context.cwd`) and the tool touches only the real path granted; refusals and file
 * errors become is_error results.
 */
export function createFileTools(): AnyTool[] {
  return [createReadFileTool(), createWriteFileTool(), createEditFileTool()];
}
