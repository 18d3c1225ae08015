import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src", import.meta.url));
const BASE = ["types", "errors", "deps", "paths", "content", "fs"];
/** The core's lower layers: what tools, the runtime and the loop are made of. */
const PARTS = [...BASE, "model", "gate", "sessions", "skills", "memory"];
/** Every folder of the core; the modules (shell, mcp, postgres, cron, providers, telemetry, testing) and the CLI are outside it. */
const CORE = [...PARTS, "tools", "runtime", "loop", "assistant", "index"];

/** Which layers each layer may import (its own always allowed). Imports point down only; the core imports no module. */
const ALLOWED: Record<string, string[]> = {
  types: [],
  errors: [],
  deps: ["types"],
  paths: [],
  content: [],
  fs: ["types", "errors", "deps"],
  model: BASE,
  gate: BASE,
  sessions: BASE,
  skills: BASE,
  memory: BASE,
  tools: [...PARTS],
  runtime: [...PARTS, "tools"],
  loop: [...PARTS, "tools", "runtime"],
  assistant: [...PARTS, "tools", "runtime", "loop"],
  index: ["*"],
  shell: [...CORE],
  mcp: [...CORE],
  cron: [...CORE],
  postgres: [...CORE, "cron"],
  providers: [...CORE],
  telemetry: [...CORE],
  cli: ["*"],
  // The scripted server is independent of the loop; cassettes clean what they keep with the gate's redaction.
  testing: ["gate"],
};

/** The modules and the CLI: outside the core's budget. */
const MODULES = ["shell", "mcp", "postgres", "cron", "providers", "telemetry", "cli", "testing"];
const MAX_FILE_LINES = 250;
const MAX_FUNCTION_LINES = 60;
const MAX_CORE_LINES = 9_000;

/** The composition root wires the shell in (run_command is a default tool), and the root index re-exports checkCommandSafety. */
const SHELL_WIRING = new Set(["runtime/open-runtime.ts", "runtime/runtime-options.ts", "index.ts"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

const layerOf = (file: string): string => relative(SRC, file).split("/")[0]!.replace(/\.ts$/, "");
const files = sourceFiles(SRC).map((file) => ({ file, layer: layerOf(file), text: readFileSync(file, "utf8") }));

describe("architecture", () => {
  it("knows the layer of every source file", () => {
    expect(files.filter((f) => !(f.layer in ALLOWED)).map((f) => f.file)).toEqual([]);
  });

  it("imports point down the layers only, and the core imports no module but the shell its composition root wires in", () => {
    const violations: string[] = [];
    for (const { file, layer, text } of files) {
      for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)) {
        const target = layerOf(join(file, "..", spec!).replace(/\.js$/, ".ts"));
        const allowed = ALLOWED[layer]!;
        const wired = target === "shell" && SHELL_WIRING.has(relative(SRC, file));
        if (target !== layer && !wired && !allowed.includes("*") && !allowed.includes(target)) violations.push(`${relative(SRC, file)} → ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("keeps each effect in its one home", () => {
    const offenders = (pattern: RegExp, home: (path: string) => boolean): string[] =>
      files.filter((f) => pattern.test(f.text) && !home(relative(SRC, f.file))).map((f) => relative(SRC, f.file));
    expect(offenders(/process\.(stdin|stdout|argv|exit)\b/, (p) => p.startsWith("cli/"))).toEqual([]);
    expect(offenders(/from "node-schedule"/, (p) => p === "cron/cron.ts")).toEqual([]);
    expect(offenders(/from "cron-parser"/, (p) => p === "cron/cron.ts")).toEqual([]);
    expect(offenders(/from "pg"|import\("pg"\)/, (p) => p === "postgres/database.ts")).toEqual([]);
    expect(offenders(/from "pg-boss"|import\("pg-boss"\)/, (p) => p === "postgres/cron-pg.ts")).toEqual([]);
    expect(offenders(/new Anthropic\(/, (p) => p === "model/client.ts")).toEqual([]);
    expect(offenders(/ANTHROPIC_(API_KEY|AUTH_TOKEN|BASE_URL)/, (p) => p === "model/client.ts" || p === "model/credentials.ts" || p.startsWith("cli/") || p.startsWith("providers/"))).toEqual([]);
  });

  it("keeps every file within 250 lines and every function within 60", () => {
    expect(files.filter((f) => lineCount(f.text) > MAX_FILE_LINES).map((f) => `${relative(SRC, f.file)}: ${lineCount(f.text)} lines`)).toEqual([]);
    expect(files.flatMap((f) => longFunctions(f.file, f.text))).toEqual([]);
  });

  it("keeps the core within 9,000 lines", () => {
    const core = files.filter((f) => !MODULES.includes(f.layer));
    expect(core.reduce((sum, f) => sum + lineCount(f.text), 0)).toBeLessThanOrEqual(MAX_CORE_LINES);
  });

  it("explains one turn with one approval from the files the README names, in reading order: at most 4 and 2,500 lines", () => {
    const readme = readFileSync(join(SRC, "..", "README.md"), "utf8");
    const order = /^Reading order[^\n]*\n((?:\d+\. .*\n)+)/m.exec(readme)?.[1] ?? "";
    const named = [...order.matchAll(/`(src\/[^`]+\.ts)`/g)].map((m) => m[1]!);
    expect(named.slice(0, 3)).toEqual(["src/loop/run-turn.ts", "src/tools/dispatch.ts", "src/gate/gate.ts"]);
    expect(named.length).toBeLessThanOrEqual(4);
    const lines = named.map((path) => lineCount(readFileSync(join(SRC, "..", path), "utf8")));
    expect(lines.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(2_500);
  });
});

/** Lines as `wc -l` counts them. */
function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Every function, method or arrow function of a file longer than MAX_FUNCTION_LINES, from its first line to its last. */
function longFunctions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const long: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      if (last - first + 1 > MAX_FUNCTION_LINES) long.push(`${relative(SRC, file)}:${first + 1}: ${last - first + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return long;
}
