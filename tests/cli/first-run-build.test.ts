// A checkout of the repository builds the command on its first run: `npm install && npm start` needs no build step,
// and the package needs no install script for it.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cleanEnv } from "../helpers/cli.js";
import { tempDirSync } from "../helpers/temp-dir.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("a checkout's first run", () => {
  it("builds dist/ once, says so in one line, and runs; later runs start at once", () => {
    const dir = tempDirSync("miniclaw-checkout-");
    for (const part of ["bin", "src", "scripts", "skills", "workspace", "package.json"]) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const version = execFileSync(process.execPath, ["-p", "require('./package.json').version"], { cwd: ROOT, encoding: "utf8" }).trim();
    const first = spawnSync(process.execPath, [join(dir, "bin", "miniclaw.js"), "--version"], { env: cleanEnv(), cwd: tmpdir(), encoding: "utf8" });
    expect([first.status, first.stdout.trim(), first.stderr]).toEqual([0, version, "miniclaw: building the command from src/ (once)...\n"]);
    expect(existsSync(join(dir, "dist", "pkg", "grammar", "tree-sitter-bash.wasm"))).toBe(true);
    const second = spawnSync(process.execPath, [join(dir, "bin", "miniclaw.js"), "--version"], { env: cleanEnv(), cwd: tmpdir(), encoding: "utf8" });
    expect([second.status, second.stdout.trim(), second.stderr]).toEqual([0, version, ""]);
  });
});
