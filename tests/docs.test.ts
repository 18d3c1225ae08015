// The README and docs/ as a reader meets them: a front door under 15 KB, pages with current contents and links that resolve,
// and every command of their shell blocks run as written, through the real binary against the scripted model.
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { chmod, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProviderModel, startScriptedModel, type ProviderModel, type ScriptedModel, type WireProvider } from "../src/testing/index.js";
import { BIN, cleanEnv } from "./helpers/cli.js";
import { databaseUnavailable, newTestSchema, type TestSchema } from "./helpers/pg.js";
import { tempDir } from "./helpers/temp-dir.js";
// @ts-expect-error: a plain script of the repository, without types
import { slug, withContents } from "../scripts/docs-toc.mjs";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PAGES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
const text = (page: string): string => readFileSync(join(ROOT, page), "utf8");

/** The fenced blocks of a page, with their language. */
function blocks(page: string): Array<{ language: string; code: string }> {
  return [...text(page).matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ language: m[1]!, code: m[2]! }));
}

/** The shell lines of a page that call miniclaw, with what they need set before them (`export` lines of the same page). */
function commandLines(page: string): string[] {
  return blocks(page)
    .filter((b) => b.language === "sh")
    .flatMap((b) => b.code.split("\n"))
    .filter((line) => /^(?:[A-Z_][A-Z0-9_]*=\S+ )*miniclaw |\| miniclaw |^export MINICLAW_/.test(line));
}

/** Lines that start with npm: each names a script of package.json (they are the project's own long runs: not run here). */
function npmScripts(): string[] {
  const lines = PAGES.flatMap((page) => blocks(page).filter((b) => b.language === "sh").flatMap((b) => b.code.split("\n")));
  return lines.flatMap((line) => [...line.matchAll(/npm (?:run (\S+)|(start|test))/g)].map((m) => m[1] ?? m[2]!));
}

/** Each `[text](target)` of a page that is not a web address. */
function localLinks(page: string): string[] {
  const prose = text(page).replace(/^```[\s\S]*?^```$/gm, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target));
}

describe("the README and docs/", () => {
  it("keeps the README a front door: under 15 KB, linking every page of docs/", () => {
    expect(Buffer.byteLength(text("README.md"))).toBeLessThan(15_000);
    for (const page of PAGES.slice(1)) expect(localLinks("README.md")).toContain(page);
  });

  it("gives every page a table of contents that lists its headings as they are", () => {
    for (const page of PAGES) {
      expect(text(page), page).toMatch(/^## Contents$/m);
      expect(withContents(text(page)), `${page}: run node scripts/docs-toc.mjs`).toBe(text(page));
    }
  });

  it("links only to files and headings that exist", () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const link of localLinks(page)) {
        const [file, anchor] = link.split("#");
        const target = file ? resolve(dirname(join(ROOT, page)), file) : join(ROOT, page);
        if (!existsSync(target)) broken.push(`${page}: ${link}`);
        else if (anchor && !headingSlugs(target).includes(anchor)) broken.push(`${page}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("names only npm scripts that exist, and keeps its JSON blocks valid", () => {
    const scripts = (JSON.parse(text("package.json")) as { scripts: Record<string, string> }).scripts;
    expect(npmScripts().filter((name) => !(name in scripts))).toEqual([]);
    for (const page of PAGES) for (const b of blocks(page).filter((b) => b.language === "json")) expect(() => JSON.parse(b.code), page).not.toThrow();
  });
});

function headingSlugs(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/^#{1,3} (.+)$/gm)].map((m) => slug(m[1]!));
}

let model: ScriptedModel;
/** Each provider's wire format in front of a scripted model, for the pages' `MINICLAW_PROVIDER=… miniclaw run` lines. */
let providers: ProviderModel[];
let pg: TestSchema | undefined;
beforeAll(async () => {
  model = await startScriptedModel([{ reply: "Done." }]);
  providers = await Promise.all((["bedrock", "vertex", "foundry"] as WireProvider[]).map((p) => startProviderModel(p, [{ reply: "Done." }])));
  if ((await databaseUnavailable()) === undefined) pg = newTestSchema();
});
afterAll(async () => {
  await Promise.all([model.close(), ...providers.map((p) => p.close())]);
  await pg?.drop();
});

/**
 * A page's commands, line by line in one folder as a reader types them: `miniclaw` on PATH, a home of its own, the scripted model,
 * after one REPL line made the default session. Each must exit 0 and print no usage error.
 */
async function runPage(page: string): Promise<string[]> {
  const dir = await tempDir("miniclaw-docs-");
  const bin = join(dir, "bin");
  await run("mkdir", ["-p", bin, join(dir, "home"), join(dir, "cwd")]);
  await writeFile(join(bin, "miniclaw"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  await chmod(join(bin, "miniclaw"), 0o755);
  const env = cleanEnv({
    PATH: `${bin}:${process.env["PATH"]}`,
    HOME: join(dir, "home"),
    ANTHROPIC_BASE_URL: model.baseURL,
    ANTHROPIC_API_KEY: "docs",
    // The providers' lines reach local servers of their wire formats; no cloud credentials (Vertex's would need the network).
    ANTHROPIC_BEDROCK_BASE_URL: providers[0]!.baseURL,
    ANTHROPIC_VERTEX_BASE_URL: providers[1]!.baseURL,
    ANTHROPIC_FOUNDRY_BASE_URL: providers[2]!.baseURL,
    MINICLAW_SKIP_PROVIDER_AUTH: "1",
    ...(pg && { MINICLAW_DATABASE_SCHEMA: pg.schema }),
  });
  const cwd = join(dir, "cwd");
  const failures: string[] = [];
  try {
    await run("sh", ["-c", "git init -q && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m first && echo hello | miniclaw"], { cwd, env });
    const exports: string[] = [];
    for (const line of commandLines(page)) {
      if (line.startsWith("export ")) {
        exports.push(line.replace(/\s+#.*$/, ""));
        continue;
      }
      const provider = providers[["bedrock", "vertex", "foundry"].indexOf(/^MINICLAW_PROVIDER=(\w+)/.exec(line)?.[1] ?? "")];
      const before = provider?.requests.length ?? 0;
      const out = await run("bash", ["-c", [...exports, line].join("\n")], { cwd, env, timeout: 30_000 }).catch((e: { code: number; stderr: string }) => e);
      if (provider && provider.requests.length === before) failures.push(`${line}\n  reached no server of its provider's wire format`);
      if ("code" in out && out.code !== 0) failures.push(`${line}\n  exit ${out.code}: ${out.stderr.trim().split("\n").at(-1)}`);
      else if (/unknown (option|command)|see miniclaw .*--help/.test(out.stderr)) failures.push(`${line}\n  ${out.stderr.trim()}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return failures;
}

describe("every miniclaw command of the README and docs/, run as written", () => {
  for (const page of PAGES.filter((p) => commandLines(p).some((line) => line.includes("miniclaw ")))) {
    it.concurrent(`${page}: ${commandLines(page).length} lines`, async ({ skip }) => {
      const onDatabase = commandLines(page).some((line) => line.startsWith("export MINICLAW_DATABASE_URL"));
      if (onDatabase && !pg) return skip("no PostgreSQL answers (see the PostgreSQL tests' line)");
      expect(await runPage(page)).toEqual([]);
    }, 120_000);
  }
});
