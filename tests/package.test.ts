import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, { types: string; default: string }>;
  bin: Record<string, string>;
  engines: { node: string };
  files: string[];
};

describe("the package", () => {
  it("maps . and ./testing to built JavaScript with types", () => {
    for (const entry of [".", "./testing"]) {
      expect(existsSync(join(ROOT, pkg.exports[entry]!.default))).toBe(true);
      expect(existsSync(join(ROOT, pkg.exports[entry]!.types))).toBe(true);
    }
    expect(pkg.bin["miniclaw"]).toBe("bin/miniclaw.js");
  });

  it("imports on plain Node, without a TypeScript loader, by its package name", () => {
    const script = `
      const lib = await import("miniclaw");
      const testing = await import("miniclaw/testing");
      const names = ["runAgentTurn", "defineTool", "loadAgents", "checkCommandSafety", "resolveAgent", "SkillLoader", "MemoryStore", "SessionStore"];
      console.log(JSON.stringify([...names.map((n) => typeof lib[n]), typeof testing.startScriptedModel]));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(JSON.parse(out)).toEqual([...Array(8).fill("function"), "function"]);
  });

  it("tracks the workspace templates and not the live workspace, which git ignores", () => {
    const git = (...args: string[]): string => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });
    expect(git("ls-files", "--", "workspace").trim()).toBe("");
    expect(git("ls-files", "--", "templates").trim().split("\n").sort()).toEqual(
      ["HEARTBEAT.md", "agents/main/SOUL.md", "agents/researcher/SOUL.md", "cron.json"].map((file) => `templates/workspace/${file}`),
    );
    expect(git("check-ignore", "workspace/cron.json", "workspace/HEARTBEAT.md", "workspace/agents/main/SOUL.md").trim().split("\n")).toHaveLength(3);
    expect(() => git("check-ignore", "templates/workspace/cron.json")).toThrow();
    expect(pkg.files).toContain("templates");
    expect(pkg.files.filter((entry) => entry.startsWith("workspace"))).toEqual([]);
  });

  it("exports what a library user builds with, and no internals", () => {
    const script = `const lib = await import("miniclaw"); console.log(JSON.stringify(Object.keys(lib).sort()));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    expect(JSON.parse(out)).toEqual([
      "ConfigError", "MemoryStore", "MiniclawError", "SessionError", "SessionStore", "SkillLoader", "ToolError",
      "checkCommandSafety", "createClient", "defineTool", "ensureWorkspace", "estimateCostUsd", "exportSession", "importSession",
      "loadAgents", "openAssistant", "openRuntime", "resolveAgent", "runAgentTurn", "streamAgentTurn",
    ]);
  });
});
