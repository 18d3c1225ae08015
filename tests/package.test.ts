import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedModel } from "../src/testing/index.js";
import { tempDirSync } from "./helpers/temp-dir.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, { types: string; default: string }>;
  bin: Record<string, string>;
  engines: { node: string };
  files: string[];
};

describe("the package", () => {
  it("maps . and each module's subpath to built JavaScript with types", () => {
    for (const entry of [".", "./shell", "./mcp", "./postgres", "./cron", "./testing"]) {
      expect(existsSync(join(ROOT, pkg.exports[entry]!.default))).toBe(true);
      expect(existsSync(join(ROOT, pkg.exports[entry]!.types))).toBe(true);
    }
    expect(pkg.bin["miniclaw"]).toBe("bin/miniclaw.js");
  });

  it("ships types that reach no package's types but the SDK's and zod's (and Node's own), and a module's its peer ships", () => {
    const shipped = readdirSync(join(ROOT, "dist"), { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".d.ts"));
    expect(shipped.length).toBeGreaterThan(100);
    const reached = shipped.flatMap((file) => {
      const text = readFileSync(join(ROOT, "dist", file), "utf8");
      const specifiers = [...text.matchAll(/(?:from\s+|import\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
      const own = file.startsWith("mcp/") ? /^@modelcontextprotocol\/client$/ : file.startsWith("telemetry/") ? /^@opentelemetry\/api$/ : /^$/;
      return specifiers.filter((spec) => !/^(\.|node:|@anthropic-ai\/sdk(\/|$)|zod(\/|$))/.test(spec) && !own.test(spec)).map((spec) => `${file}: ${spec}`);
    });
    expect(reached).toEqual([]);
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

  it("tracks the shipped workspace, ships it, and git ignores what a run would write into it", () => {
    const git = (...args: string[]): string => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });
    const shipped = ["HEARTBEAT.md", "README.md", "agents/main/SOUL.md", "agents/researcher/SOUL.md", "cron.json"].map((file) => `workspace/${file}`);
    expect(git("ls-files", "--", "workspace").trim().split("\n").sort()).toEqual(shipped);
    const runtime = ["workspace/sessions/agent#main#main.jsonl", "workspace/memory/a.md", "workspace/exec-approvals.json", "workspace/mcp.json", "workspace/cron/state.json"];
    expect(git("check-ignore", ...runtime).trim().split("\n")).toHaveLength(runtime.length);
    expect(() => git("check-ignore", "workspace/cron.json")).toThrow();
    expect(pkg.files.filter((entry) => entry.startsWith("workspace")).sort()).toEqual(["workspace/HEARTBEAT.md", "workspace/README.md", "workspace/agents", "workspace/cron.json"]);
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

  it("loads no module of pg, pg-boss or MCP for an import and a turn with neither a database nor an MCP server", async () => {
    const model = await startScriptedModel([{ match: { toolResult: {} }, reply: "done" }, { reply: { toolUses: [{ name: "run_command", input: { command: 'ls "a folder"' } }] } }]);
    try {
      const workspace = tempDirSync("miniclaw-load-");
      // Not execFileSync: the scripted model answers from this process, which must not be blocked meanwhile.
      const { stdout: out } = await promisify(execFile)(process.execPath, [join(ROOT, "tests/fixtures/package/one-turn.mjs"), model.baseURL, workspace], { cwd: ROOT, encoding: "utf8" });
      const { stopReason, packages } = JSON.parse(out) as { stopReason: string; packages: string[] };
      expect(stopReason).toBe("end_turn");
      expect(packages.filter((name) => /^(pg|pg-boss|@modelcontextprotocol\/.*)$/.test(name))).toEqual([]);
      expect(packages).toContain("web-tree-sitter");
    } finally {
      await model.close();
    }
  });
});
