// read_file: numbered lines from a text file, from an offset, within a line and byte cap that says how to read on.
import { stat, type FileHandle } from "node:fs/promises";
import * as z from "zod";
import { ToolError } from "../errors.js";
import { openRegular } from "../fs/regular-file.js";
import { defineTool, type Tool } from "./define.js";
import { describeMissing, grantedPath, pathAccess } from "./file-access.js";

export const MAX_READ_BYTES = 256 * 1024;
export const MAX_READ_LINES = 2_000;
/** Longer lines are cut (minified files would otherwise fill the whole budget with one line). */
const MAX_LINE_BYTES = 4_000;
const BINARY_SNIFF_BYTES = 8_192;
const CHUNK_BYTES = 64 * 1024;

const readFileInput = z.object({
  path: z.string().min(1).describe("File to read; relative paths start at the working directory"),
  offset: z.number().int().min(1).optional().describe("First line to read, 1-based (default 1)"),
  limit: z.number().int().min(1).optional().describe(`Most lines to return (default and maximum ${MAX_READ_LINES})`),
});

/** The read_file tool. Errors (missing, directory, binary, offset past the end) are ToolErrors the model can act on. */
export function createReadFileTool(): Tool<z.infer<typeof readFileInput>> {
  return defineTool({
    name: "read_file",
    description:
      `Read a text file. Returns numbered lines (at most ${MAX_READ_LINES} lines or ${MAX_READ_BYTES / 1024} KB per call); ` +
      "when the file continues, the result says which offset to read from next.",
    input: readFileInput,
    access: pathAccess("read"),
    async run(input, context) {
      const path = grantedPath(context);
      const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
        throw new ToolError(error.code === "ENOENT" ? describeMissing(input.path, context.cwd) : `cannot read ${input.path}: ${error.message}`);
      });
      if (info.isDirectory()) throw new ToolError(`${input.path} is a directory, not a file; list it with run_command (ls ${input.path})`);
      if (!info.isFile()) throw new ToolError(`${input.path} is not a regular file`);
      // Without blocking, and checked again once open: a FIFO put in the file's place since the stat is refused, not waited on.
      const { handle, size } = await openRegular(path).catch((error: Error) => {
        throw new ToolError(`cannot read ${input.path}: ${error.message}`);
      });
      try {
        const { buffer, bytesRead } = await handle.read(Buffer.alloc(BINARY_SNIFF_BYTES), 0, BINARY_SNIFF_BYTES, 0);
        if (buffer.subarray(0, bytesRead).includes(0)) throw new ToolError(`${input.path} looks like a binary file (a NUL byte in its first 8 KB; ${size} bytes); read_file only reads text`);
        return await readLines(handle, input.path, input.offset ?? 1, Math.min(input.limit ?? MAX_READ_LINES, MAX_READ_LINES));
      } finally {
        await handle.close();
      }
    },
  });
}

/** Reads from `offset`, stopping before the line that would pass the line or byte cap. */
async function readLines(handle: FileHandle, shown: string, offset: number, limit: number): Promise<string> {
  const out: string[] = [];
  let outBytes = 0;
  let lineNo = 0;
  let stoppedAt: number | null = null;
  let capReason = "";
  for await (const line of splitLines(handle)) {
    lineNo++;
    if (lineNo < offset) continue;
    const text = `${String(lineNo).padStart(6)}\t${line}`;
    if (out.length >= limit || outBytes + text.length + 1 > MAX_READ_BYTES) {
      stoppedAt = lineNo;
      capReason = out.length >= limit ? `${limit} lines` : `${MAX_READ_BYTES / 1024} KB`;
      break;
    }
    out.push(text);
    outBytes += text.length + 1;
  }
  if (lineNo === 0) return `(${shown} is empty)`;
  if (out.length === 0) throw new ToolError(`offset ${offset} is past the end of ${shown}, which has ${lineNo} lines`);
  if (stoppedAt === null) return out.join("\n");
  return `${out.join("\n")}\n\n[showed lines ${offset}-${stoppedAt - 1} (cap: ${capReason}); the file continues: continue with offset ${stoppedAt}]`;
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
