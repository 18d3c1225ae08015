// What the three file tools share: their path rule, the path the gate granted, and the message for a missing file.
import { ToolError } from "../errors.js";
import type { Access, ToolContext } from "./define.js";

/** The access of a file tool's call: the gate judges `path` (relative to the working directory) by the path rules. */
export function pathAccess(access: "read" | "write"): (input: { path: string }) => Access {
  return (input) => ({ path: input.path, ...(access === "write" && { write: true }) });
}

/** The real path the gate granted this call, which the tool must use instead of the input's. Without one (run called directly) nothing is touched. */
export function grantedPath(context: ToolContext): string {
  const path = context.grant?.path;
  if (path === undefined) throw new ToolError("file tools run only after the gate has judged the path (through runToolUses)");
  return path;
}

/** The message for a path that does not exist, saying where relative paths start. */
export function describeMissing(path: string, cwd: string): string {
  return `${path} does not exist (relative paths start at ${cwd})`;
}
