// write_file: replaces or creates a whole file atomically, creating folders, and says what it wrote.
import { stat } from "node:fs/promises";
import * as z from "zod";
import { ToolError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { defineTool } from "./define.js";
import type { Tool } from "./define.js";
import { grantedPath, pathAccess, countLines } from "./file-access.js";

const writeFileInput = z.object({
  path: z.string().min(1).describe("File to write; relative paths start at the working directory"),
  content: z.string().describe("The whole new content of the file"),
});

/** The write_file tool: the gate decides, then temp file + rename, so readers never see a half-written file. */
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
      try {
        await writeFileAtomic(path, input.content);
      } catch (error) {
        throw new ToolError(`could not write ${input.path}: ${(error as Error).message}`);
      }
      const bytes = Buffer.byteLength(input.content, "utf8");
      const what = existing === null ? "created" : "replaced";
      return `Wrote ${bytes} bytes (${countLines(input.content)} lines) to ${input.path} (${what}).`;
    },
  });
}
