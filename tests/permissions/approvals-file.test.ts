// The approvals file: reading (missing, valid, corrupt, invalid) and saving (merged, atomic, safe across processes).
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { addApprovals, readApprovals } from "../../src/permissions/approvals-file.js";
import { checkCommandSafety } from "../../src/permissions/safety.js";
import { makeTempDir } from "../helpers/tool-context.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

describe("readApprovals", () => {
  it("reads a missing or empty file as empty lists", async () => {
    const dir = await makeTempDir();
    expect(await readApprovals(join(dir, "exec-approvals.json"))).toEqual({ allowed: [], denied: [] });
    writeFileSync(join(dir, "empty.json"), "\n");
    expect(await readApprovals(join(dir, "empty.json"))).toEqual({ allowed: [], denied: [] });
  });

  it("warns about a corrupt file, naming it and the problem, approves nothing and leaves it untouched", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const corrupt = '{"allowed": ["rm -rf build"], ';
    writeFileSync(path, corrupt);
    const warnings: string[] = [];
    expect(await readApprovals(path, (m) => warnings.push(m))).toEqual({ allowed: [], denied: [] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: is not valid JSON \\(.+\\)\\. The file was left as it is`));
    expect(await addApprovals(path, { allowed: ["ls"] }, (m) => warnings.push(m))).toBe(false);
    expect(warnings[1]).toContain("The decision was not saved and the file was left as it is.");
    expect(readFileSync(path, "utf8")).toBe(corrupt);
  });

  it("warns about a file of the wrong shape, saying which field", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    writeFileSync(path, JSON.stringify({ allowed: "npm test", denied: [] }));
    const warnings: string[] = [];
    expect(await readApprovals(path, (m) => warnings.push(m))).toEqual({ allowed: [], denied: [] });
    expect(warnings[0]).toContain("is not a valid approvals file (allowed: ");
  });
});

describe("too broad allowed entries", () => {
  it("leaves out entries that approve every use of a program, with one warning each, and keeps narrow ones", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    const broad = ["*", "* -rf x", "rm *", "rm -rf *", "bash * *", "r? x", "python3 -c *"];
    const narrow = ["rm -rf build", "npm test *", "npm run * --prod", "git log *", "rm -rf dist/*"];
    writeFileSync(path, JSON.stringify({ allowed: [...broad, ...narrow], denied: ["rm *"] }));
    const warnings: string[] = [];
    const lists = await readApprovals(path, (m) => warnings.push(m));
    expect(lists).toEqual({ allowed: narrow, denied: ["rm *"] });
    expect(warnings.map((w) => /the allowed entry "(.*)" is ignored/.exec(w)?.[1])).toEqual(broad);
  });

  it("approves nothing through them even when they are passed to checkCommandSafety directly", async () => {
    const allowed = ["rm *", "rm -rf *", "*", "* victim"];
    const verdicts = await Promise.all(["rm x", "rm -rf victim", "rm *", "curl x | sh"].map((c) => checkCommandSafety(c, { allowed })));
    expect(verdicts).toEqual(["needs_approval", "needs_approval", "needs_approval", "needs_approval"]);
    expect(await checkCommandSafety("rm -rf victim", { allowed: ["rm -rf victim"] })).toBe("approved");
  });
});

describe("addApprovals", () => {
  it("merges with what is on disk, keeps unknown fields and writes no stray files", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "exec-approvals.json");
    writeFileSync(path, JSON.stringify({ allowed: ["a"], denied: ["x"], version: 2 }));
    expect(await addApprovals(path, { allowed: ["  b  ", "a"] })).toBe(true);
    expect(await addApprovals(path, { denied: ["y"] })).toBe(true);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ allowed: ["a", "b"], denied: ["x", "y"], version: 2 });
    expect(readdirSync(dir)).toEqual(["exec-approvals.json"]);
  });

  it("loses nothing when two processes approve 20 commands each at the same time", async () => {
    const dir = await makeTempDir();
    const path = join(dir, "workspace", "exec-approvals.json");
    const entry = await transpileForChildren(dir);
    const script = [
      "const [entry, path, name] = process.argv.slice(1);",
      "const { addApprovals } = await import(entry);",
      "for (let i = 0; i < 20; i++) await addApprovals(path, { allowed: [`echo ${name} ${i}`] });",
    ].join("\n");
    await Promise.all(["a", "b"].map((name) => runChild(["--input-type=module", "-e", script, entry, path, name])));
    const saved = JSON.parse(readFileSync(path, "utf8")) as { allowed: string[] };
    expect(saved.allowed.slice().sort()).toEqual(["a", "b"].flatMap((n) => Array.from({ length: 20 }, (_, i) => `echo ${n} ${i}`)).sort());
    expect(readdirSync(dirname(path))).toEqual(["exec-approvals.json"]);
  });
});

/** Compiles src/ to plain JavaScript in `dir` (child processes have no TypeScript loader); returns the approvals module's URL. */
async function transpileForChildren(dir: string): Promise<string> {
  const out = join(dir, "js");
  const files = ["deps.ts", "errors.ts", "types.ts", ...readdirSync(join(repo, "src/permissions")).map((f) => `permissions/${f}`)];
  for (const file of files) {
    const source = readFileSync(join(repo, "src", file), "utf8");
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true } });
    mkdirSync(dirname(join(out, file)), { recursive: true });
    writeFileSync(join(out, file.replace(/\.ts$/, ".js")), outputText);
  }
  writeFileSync(join(out, "package.json"), '{"type":"module"}');
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));
  return pathToFileURL(join(out, "permissions", "approvals-file.js")).href;
}

function runChild(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"], cwd: repo });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`child exited ${code}: ${stderr}`))));
  });
}
