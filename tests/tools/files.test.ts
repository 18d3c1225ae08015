// read_file, write_file and edit_file on real temp dirs: results, every error, the caps, and escapes refused by the gate.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ToolError } from "../../src/errors.js";
import { createFileTools, editFileTool, MAX_READ_LINES, readFileTool, writeFileTool } from "../../src/tools/files.js";
import { buildToolContext, makeTempDir } from "../helpers/tool-context.js";
import { gatedRun } from "./gated-run.js";

const readFile = readFileTool;
const writeFile = writeFileTool;
const editFile = editFileTool;

async function failure(promise: Promise<unknown> | unknown): Promise<string> {
  const error = await Promise.resolve(promise).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

describe("createFileTools", () => {
  it("offers read_file, write_file and edit_file with the documented inputs", () => {
    const tools = createFileTools();
    expect(tools.map((t) => [t.name, Object.keys((t.inputSchema.properties ?? {}) as object)])).toEqual([
      ["read_file", ["path", "offset", "limit"]],
      ["write_file", ["path", "content"]],
      ["edit_file", ["path", "old_string", "new_string"]],
    ]);
  });
});

describe("read_file", () => {
  it("returns numbered lines, from an offset and up to a limit, saying how to read on", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "a.txt"), "one\ntwo\r\nthree\nfour\n");
    expect(await gatedRun(readFile, { path: "a.txt" }, context)).toBe("     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour");
    expect(await gatedRun(readFile, { path: "a.txt", offset: 2, limit: 2 }, context)).toBe(
      "     2\ttwo\n     3\tthree\n\n[showed lines 2-3 (cap: 2 lines); the file continues: continue with offset 4]",
    );
    expect(await gatedRun(readFile, { path: "a.txt", offset: 4, limit: 1 }, context)).toBe("     4\tfour");
  });

  it("caps a long file at the line limit and a wide one at the byte limit", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "long.txt"), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n"));
    const long = (await gatedRun(readFile, { path: "long.txt" }, context)) as string;
    expect(long.split("\n")).toHaveLength(MAX_READ_LINES + 2);
    expect(long.endsWith(`[showed lines 1-${MAX_READ_LINES} (cap: ${MAX_READ_LINES} lines); the file continues: continue with offset ${MAX_READ_LINES + 1}]`)).toBe(true);
    writeFileSync(join(context.cwd, "wide.txt"), Array.from({ length: 200 }, () => "x".repeat(3000)).join("\n"));
    const wide = (await gatedRun(readFile, { path: "wide.txt" }, context)) as string;
    expect(wide).toMatch(/\[showed lines 1-\d+ \(cap: 256 KB\); the file continues: continue with offset \d+\]$/);
    expect(wide.length).toBeLessThanOrEqual(256 * 1024 + 200);
  });

  it("cuts a very long line and says by how much", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "min.js"), `${"a".repeat(10_000)}\nend\n`);
    expect(await gatedRun(readFile, { path: "min.js" }, context)).toBe(`     1\t${"a".repeat(4_000)}… [line cut: 6000 more bytes]\n     2\tend`);
  });

  it("fails clearly for missing paths, directories, binary files and offsets past the end", async () => {
    const context = await buildToolContext();
    mkdirSync(join(context.cwd, "dir"));
    writeFileSync(join(context.cwd, "bin.dat"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    writeFileSync(join(context.cwd, "short.txt"), "a\nb\n");
    writeFileSync(join(context.cwd, "empty.txt"), "");
    expect(await failure(gatedRun(readFile, { path: "nope.txt" }, context))).toBe(`nope.txt does not exist (relative paths start at ${context.cwd})`);
    expect(await failure(gatedRun(readFile, { path: "dir" }, context))).toBe("dir is a directory, not a file; list it with run_command (ls dir)");
    expect(await failure(gatedRun(readFile, { path: "bin.dat" }, context))).toBe("bin.dat looks like a binary file (a NUL byte in its first 8 KB; 4 bytes); read_file only reads text");
    expect(await failure(gatedRun(readFile, { path: "short.txt", offset: 9 }, context))).toBe("offset 9 is past the end of short.txt, which has 2 lines");
    expect(await gatedRun(readFile, { path: "empty.txt" }, context)).toBe("(empty.txt is empty)");
  });
});

describe("write_file", () => {
  it("creates parent folders, writes atomically and reports what it wrote", async () => {
    const context = await buildToolContext();
    expect(await gatedRun(writeFile, { path: "deep/er/new.txt", content: "a\nb\nc\n" }, context)).toBe("Wrote 6 bytes (3 lines) to deep/er/new.txt (created).");
    expect(readFileSync(join(context.cwd, "deep/er/new.txt"), "utf8")).toBe("a\nb\nc\n");
    expect(await gatedRun(writeFile, { path: "deep/er/new.txt", content: "é" }, context)).toBe("Wrote 2 bytes (1 lines) to deep/er/new.txt (replaced).");
    expect(readdirSync(join(context.cwd, "deep/er"))).toEqual(["new.txt"]);
  });

  it("refuses to write over a directory", async () => {
    const context = await buildToolContext();
    mkdirSync(join(context.cwd, "dir"));
    expect(await failure(gatedRun(writeFile, { path: "dir", content: "x" }, context))).toBe("dir is a directory; give a file path");
  });
});

describe("edit_file", () => {
  it("replaces one unique occurrence and reports the line", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "f.ts"), "const a = 1;\nconst b = 2;\nconst c = $1;\n");
    expect(await gatedRun(editFile, { path: "f.ts", old_string: "const b = 2;", new_string: "const b = 3;\nconst bb = $&;" }, context)).toBe(
      "Edited f.ts: replaced 1 line(s) with 2 at line 2.",
    );
    expect(readFileSync(join(context.cwd, "f.ts"), "utf8")).toBe("const a = 1;\nconst b = 3;\nconst bb = $&;\nconst c = $1;\n");
  });

  it("fails clearly when the string is absent, repeated, empty or unchanged, or the file is missing", async () => {
    const context = await buildToolContext();
    writeFileSync(join(context.cwd, "f.txt"), "x = 1\nx = 1\ny\n");
    expect(await failure(gatedRun(editFile, { path: "f.txt", old_string: "z", new_string: "w" }, context))).toBe(
      "old_string was not found in f.txt. Check whitespace and indentation: read_file shows the exact text (without the line-number prefix).",
    );
    expect(await failure(gatedRun(editFile, { path: "f.txt", old_string: "x = 1", new_string: "x = 2" }, context))).toBe(
      "old_string occurs 2 times in f.txt; include more surrounding lines so it matches exactly once",
    );
    expect(await failure(gatedRun(editFile, { path: "f.txt", old_string: "", new_string: "w" }, context))).toBe("old_string is empty; to create or replace a whole file use write_file");
    expect(await failure(gatedRun(editFile, { path: "f.txt", old_string: "y", new_string: "y" }, context))).toBe("old_string and new_string are the same; nothing to change");
    expect(await failure(gatedRun(editFile, { path: "gone.txt", old_string: "a", new_string: "b" }, context))).toBe(
      `gone.txt does not exist (relative paths start at ${context.cwd}); use write_file to create it`,
    );
    expect(readFileSync(join(context.cwd, "f.txt"), "utf8")).toBe("x = 1\nx = 1\ny\n");
  });

  it("refuses a FIFO instead of waiting for ever on its read", async () => {
    const context = await buildToolContext();
    execFileSync("mkfifo", [join(context.cwd, "pipe")]);
    expect(await failure(gatedRun(editFile, { path: "pipe", old_string: "a", new_string: "b" }, context))).toBe("pipe is not a regular file");
  });
});

describe("file tools behind the gate", () => {
  it("refuses paths outside the roots, through .. or through a symlink, when nobody can approve", async () => {
    const outside = await makeTempDir();
    const context = await buildToolContext();
    writeFileSync(join(outside, "secret.txt"), "outside\n");
    symlinkSync(outside, join(context.cwd, "link"));
    const escapes = [
      gatedRun(writeFile, { path: join(outside, "new.txt"), content: "x" }, context),
      gatedRun(writeFile, { path: "../escaped.txt", content: "x" }, context),
      gatedRun(writeFile, { path: "link/new.txt", content: "x" }, context),
      gatedRun(readFile, { path: "link/secret.txt" }, context),
      gatedRun(editFile, { path: "link/secret.txt", old_string: "outside", new_string: "hacked" }, context),
    ];
    for (const escape of escapes) expect(await failure(escape)).toMatch(/needs the user's approval \(it is outside the allowed folders/);
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("outside\n");
  });

  it("refuses every write in plan mode but still reads inside the roots", async () => {
    const context = await buildToolContext({ mode: "plan" });
    writeFileSync(join(context.cwd, "a.txt"), "a\n");
    expect(await failure(gatedRun(writeFile, { path: "b.txt", content: "x" }, context))).toBe(`Plan mode is read-only: writing ${join(context.cwd, "b.txt")} is not allowed. Describe the change in your plan instead.`);
    expect(await failure(gatedRun(editFile, { path: "a.txt", old_string: "a", new_string: "b" }, context))).toMatch(/^Plan mode is read-only/);
    expect(await gatedRun(readFile, { path: "a.txt" }, context)).toBe("     1\ta");
  });
});
