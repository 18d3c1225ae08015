import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src", import.meta.url));
const BASE = ["types", "errors", "deps", "paths", "content", "fs"];
const CORE = [...BASE, "model", "tools", "sessions", "gate", "shell", "skills", "memory", "mcp", "postgres"];

/** Which layers each layer may import (its own always allowed). Imports point down only. */
const ALLOWED: Record<string, string[]> = {
  types: [],
  errors: [],
  deps: ["types"],
  paths: [],
  content: [],
  fs: ["types", "errors", "deps"],
  postgres: ["*"],
  cron: ["*"],
  index: ["*"],
  model: BASE,
  gate: [...BASE, "shell"],
  shell: [...BASE, "gate", "tools"],
  sessions: [...BASE, "postgres"],
  skills: BASE,
  memory: BASE,
  tools: [...BASE, "gate", "shell", "skills", "memory", "model"],
  mcp: [...BASE, "tools", "gate"],
  loop: CORE,
  runtime: [...CORE, "loop"],
  cli: [...CORE, "loop", "runtime", "cron", "testing"],
  testing: [],
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

const layerOf = (file: string): string => relative(SRC, file).split("/")[0]!.replace(/\.ts$/, "");
const files = sourceFiles(SRC).map((file) => ({ file, layer: layerOf(file), text: readFileSync(file, "utf8") }));

describe("architecture", () => {
  it("knows the layer of every source file", () => {
    expect(files.filter((f) => !(f.layer in ALLOWED)).map((f) => f.file)).toEqual([]);
  });

  it("imports point down the layers only", () => {
    const violations: string[] = [];
    for (const { file, layer, text } of files) {
      for (const [, spec] of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g)) {
        const target = layerOf(join(file, "..", spec!).replace(/\.js$/, ".ts"));
        const allowed = ALLOWED[layer]!;
        if (target !== layer && !allowed.includes("*") && !allowed.includes(target)) violations.push(`${relative(SRC, file)} → ${spec}`);
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
    expect(offenders(/ANTHROPIC_(API_KEY|AUTH_TOKEN|BASE_URL)/, (p) => p === "model/client.ts" || p === "model/credentials.ts" || p.startsWith("cli/"))).toEqual([]);
  });

  it("keeps the loop readable: run-turn.ts under 300 lines, no source file over 400", () => {
    const lines = (f: { text: string }): number => f.text.split("\n").length;
    expect(lines(files.find((f) => f.file.endsWith("loop/run-turn.ts"))!)).toBeLessThan(300);
    expect(files.filter((f) => lines(f) > 400).map((f) => relative(SRC, f.file))).toEqual([]);
  });
});
