// The file tools: read_file (numbered lines within a cap that says how to read on), write_file (a whole file, atomically) and edit_file (one exact, unique passage).
import { stat, type FileHandle } from "node:fs/promises";
import * as z from "zod";
import { ToolError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { openRegular, readRegularFile } from "../fs/regular-file.js";
import { defineTool, type Access, type AnyTool, type ToolContext } from "./define.js";
import { mediaTypeOf, readMedia } from "./media.js";

export const MAX_READ_BYTES = 256 * 1024;
export const MAX_READ_LINES = 2_000;
/** Longer lines are cut (minified files would otherwise fill the whole budget with one line). */
const MAX_LINE_BYTES = 4_000;
const BINARY_SNIFF_BYTES = 8_192;
const CHUNK_BYTES = 64 * 1024;
/** Files larger than this are not loaded whole for editing. */
const MAX_EDIT_BYTES = 10 * 1024 * 1024;

/** `[read_file, write_file, edit_file]`: the gate judges each call's path before `run`, which touches only the real path granted. */
export function createFileTools(): AnyTool[] {
  return [readFileTool, writeFileTool, editFileTool];
}

/** The access of a file tool's call: the gate judges `path` (relative to the working directory) by the path rules. */
const pathAccess = (write: boolean) => (input: { path: string }): Access => ({ path: input.path, ...(write && { write: true }) });

/** The real path the gate granted this call, which the tool must use instead of the input's. Without one (run called directly) nothing is touched. */
function grantedPath(context: ToolContext): string {
  const path = context.grant?.path;
  if (path === undefined) throw new ToolError("file tools run only after the gate has judged the path (through runToolUses)");
  return path;
}

const describeMissing = (path: string, cwd: string): string => `${path} does not exist (relative paths start at ${cwd})`;
/** A file tool's failure, for the model to act on. */
const fail = (message: string): never => {
  throw new ToolError(message);
};

/** The read_file tool. Errors (missing, directory, binary, offset past the end) are ToolErrors the model can act on. */
export const readFileTool = defineTool({
  name: "read_file",
  description:
    `Read a text file, an image (PNG, JPEG, GIF, WebP) or a PDF, which you then see. Text returns numbered lines (at most ${MAX_READ_LINES} lines or ${MAX_READ_BYTES / 1024} KB per call); ` +
    "when the file continues, the result says which offset to read from next.",
  input: z.object({
    path: z.string().min(1).describe("File to read; relative paths start at the working directory"),
    offset: z.number().int().min(1).optional().describe("First line to read, 1-based (default 1)"),
    limit: z.number().int().min(1).optional().describe(`Most lines to return (default and maximum ${MAX_READ_LINES})`),
  }),
  access: pathAccess(false),
  async run(input, context) {
    const path = grantedPath(context);
    const missing = describeMissing(input.path, context.cwd);
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => fail(error.code === "ENOENT" ? missing : `cannot read ${input.path}: ${error.message}`));
    if (info.isDirectory()) throw new ToolError(`${input.path} is a directory, not a file; list it with run_command (ls ${input.path})`);
    if (!info.isFile()) throw new ToolError(`${input.path} is not a regular file`);
    // Without blocking, and checked again once open: a FIFO put in the file's place since the stat is refused, not waited on.
    const { handle, size } = await openRegular(path).catch((error: Error) => fail(`cannot read ${input.path}: ${error.message}`));
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(BINARY_SNIFF_BYTES), 0, BINARY_SNIFF_BYTES, 0);
      const media = mediaTypeOf(buffer.subarray(0, bytesRead));
      if (media) {
        const read = await readMedia(handle, size, media, input.path);
        if ("problem" in read) throw new ToolError(read.problem);
        return [read.block];
      }
      if (buffer.subarray(0, bytesRead).includes(0)) throw new ToolError(`${input.path} looks like a binary file (a NUL byte in its first 8 KB; ${size} bytes); read_file only reads text`);
      return await readLines(handle, input.path, input.offset ?? 1, Math.min(input.limit ?? MAX_READ_LINES, MAX_READ_LINES));
    } finally {
      await handle.close();
    }
  },
});

/** Numbered lines from `offset`, stopping before the line that would pass the line or byte cap (a line is at most MAX_LINE_BYTES, so one always fits). */
async function readLines(handle: FileHandle, shown: string, offset: number, limit: number): Promise<string> {
  const out: string[] = [];
  let bytes = 0;
  let lineNo = 0;
  for await (const line of splitLines(handle)) {
    if (++lineNo < offset) continue;
    const text = `${String(lineNo).padStart(6)}\t${line}`;
    if (out.length >= limit || bytes + text.length + 1 > MAX_READ_BYTES) {
      const cap = out.length >= limit ? `${limit} lines` : `${MAX_READ_BYTES / 1024} KB`;
      return `${out.join("\n")}\n\n[showed lines ${offset}-${lineNo - 1} (cap: ${cap}); the file continues: continue with offset ${lineNo}]`;
    }
    out.push(text);
    bytes += text.length + 1;
  }
  if (lineNo === 0) return `(${shown} is empty)`;
  if (out.length === 0) throw new ToolError(`offset ${offset} is past the end of ${shown}, which has ${lineNo} lines`);
  return out.join("\n");
}

/** Lines without their terminators; a line longer than MAX_LINE_BYTES is cut and says by how much. */
async function* splitLines(handle: FileHandle): AsyncGenerator<string> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let parts: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  const take = (): string => {
    const text = Buffer.concat(parts).toString("utf8").replace(/\r$/, "");
    const line = dropped > 0 ? `${text}… [line cut: ${dropped} more bytes]` : text;
    parts = [];
    kept = 0;
    dropped = 0;
    return line;
  };
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let start = 0;
    for (let nl = buffer.indexOf(10, start); nl !== -1 && nl < bytesRead; nl = buffer.indexOf(10, start)) {
      keep(buffer.subarray(start, nl));
      yield take();
      start = nl + 1;
    }
    keep(buffer.subarray(start, bytesRead));
  }
  if (kept > 0 || dropped > 0) yield take();

  function keep(segment: Buffer): void {
    const room = Math.max(0, MAX_LINE_BYTES - kept);
    parts.push(Buffer.from(segment.subarray(0, room)));
    kept += Math.min(room, segment.length);
    dropped += Math.max(0, segment.length - room);
  }
}

/** The write_file tool: temp file and rename, so readers never see a half-written file. */
export const writeFileTool = defineTool({
  name: "write_file",
  description: "Write a whole file (created with its folders if missing, replaced if present). To change part of a file, prefer edit_file.",
  input: z.object({
    path: z.string().min(1).describe("File to write; relative paths start at the working directory"),
    content: z.string().describe("The whole new content of the file"),
  }),
  access: pathAccess(true),
  async run(input, context) {
    const path = grantedPath(context);
    const existing = await stat(path).catch(() => null);
    if (existing?.isDirectory()) throw new ToolError(`${input.path} is a directory; give a file path`);
    await writeFileAtomic(path, input.content).catch((error: Error) => fail(`could not write ${input.path}: ${error.message}`));
    const what = existing === null ? "created" : "replaced";
    return `Wrote ${Buffer.byteLength(input.content, "utf8")} bytes (${countLines(input.content)} lines) to ${input.path} (${what}).`;
  },
});

/** The edit_file tool. Absent, repeated or no-op replacements are ToolErrors that say how to fix the call. */
export const editFileTool = defineTool({
  name: "edit_file",
  description: "Replace one exact, unique occurrence of old_string with new_string in a text file. Cheaper than rewriting the file.",
  input: z.object({
    path: z.string().min(1).describe("File to edit; relative paths start at the working directory"),
    old_string: z.string().describe("The exact text to replace; must occur exactly once (include surrounding lines to make it unique)"),
    new_string: z.string().describe("The text to put in its place"),
  }),
  access: pathAccess(true),
  async run(input, context) {
    const { old_string: old, new_string: replacement } = input;
    if (old === "") throw new ToolError("old_string is empty; to create or replace a whole file use write_file");
    if (old === replacement) throw new ToolError("old_string and new_string are the same; nothing to change");
    const path = grantedPath(context);
    const text = await readTextForEdit(path, input.path, context.cwd);
    const at = text.indexOf(old);
    if (at === -1) {
      const crlf = text.includes("\r\n") && old.includes("\n") && !old.includes("\r\n");
      const exact = "Check whitespace and indentation: read_file shows the exact text (without the line-number prefix).";
      throw new ToolError(`old_string was not found in ${input.path}. ${crlf ? "The file uses CRLF line endings; include the \\r characters." : exact}`);
    }
    const count = text.split(old).length - 1;
    if (count > 1) throw new ToolError(`old_string occurs ${count} times in ${input.path}; include more surrounding lines so it matches exactly once`);
    const updated = text.slice(0, at) + replacement + text.slice(at + old.length);
    await writeFileAtomic(path, updated).catch((error: Error) => fail(`could not write ${input.path}: ${error.message}`));
    return `Edited ${input.path}: replaced ${countLines(old)} line(s) with ${countLines(replacement)} at line ${countLines(text.slice(0, at + 1))}.`;
  },
});

/** A whole text file for editing: a missing path, a folder, a file over MAX_EDIT_BYTES or one with NUL bytes is a ToolError naming `shown`. */
async function readTextForEdit(path: string, shown: string, cwd: string): Promise<string> {
  const missing = `${describeMissing(shown, cwd)}; use write_file to create it`;
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => fail(error.code === "ENOENT" ? missing : `cannot read ${shown}: ${error.message}`));
  if (info.isDirectory()) throw new ToolError(`${shown} is a directory, not a file`);
  // A FIFO or a device would never end the read (or never start it): only a regular file is edited.
  if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
  if (info.size > MAX_EDIT_BYTES) throw new ToolError(`${shown} is ${info.size} bytes, more than edit_file handles (${MAX_EDIT_BYTES}); use write_file or run_command`);
  // Read through a non-blocking open: a FIFO put in the file's place since the stat is refused, not waited on.
  const bytes = await readRegularFile(path).catch((error: Error) => fail(`cannot read ${shown}: ${error.message}`));
  if (bytes.subarray(0, 8_192).includes(0)) throw new ToolError(`${shown} looks like a binary file; edit_file only edits text`);
  return bytes.toString("utf8");
}

/** Lines in a text as an editor counts them: a final newline does not start another line. */
function countLines(text: string): number {
  if (text === "") return 0;
  const newlines = text.split("\n").length - 1;
  return text.endsWith("\n") ? newlines : newlines + 1;
}
