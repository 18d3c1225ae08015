// The README's library example, run as a new user runs it: miniclaw packed, installed in a fresh `npm init -y` folder, the code pasted.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "./helpers/temp-dir.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** This machine's environment without credentials, miniclaw settings, or the npm_* of a surrounding `npm test` (but npm's cache). */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && (!/^(ANTHROPIC_|MINICLAW_|npm_)/i.test(k) || k === "npm_config_cache")) env[k] = v;
  return { ...env, NO_COLOR: "1", ...extra };
}

/** The first ```js block of a section of a page (the README, or one of docs/), as a person would copy it. */
async function readmeExample(heading: string, page = "README.md"): Promise<string> {
  const readme = await readFile(join(ROOT, page), "utf8");
  const section = readme.split(new RegExp(`^## ${heading}$`, "m"))[1]?.split(/^## /m)[0] ?? "";
  const code = /^```js\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (!code) throw new Error(`no \`\`\`js block in the ${heading} section of ${page}`);
  return code;
}

let dir: string;
let app: string;
let installed: { stdout: string; stderr: string };
beforeAll(async () => {
  dir = await tempDir("miniclaw-readme-");
  app = join(dir, "app");
  await mkdir(app);
  const env = userEnv();
  // dist/ is current (the global setup built it); packing must not build again beside other tests.
  const [packed] = await Promise.all([
    run("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", dir], { cwd: ROOT, env }),
    run("npm", ["init", "-y"], { cwd: app, env }),
  ]);
  const tarball = join(dir, packed.stdout.trim().split("\n").at(-1) ?? "");
  // As a user installs it, scripts allowed: the package has none, nor do its dependencies.
  installed = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, "zod"], { cwd: app, env });
  await writeFile(join(app, "agent.mjs"), await readmeExample("As a library"));
  await writeFile(join(app, "forecast.mjs"), await readmeExample("Structured output", "docs/library.md"));
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the README's library example, in a fresh npm folder", () => {
  it("runs as written (agent.mjs in a commonjs package) against the scripted model of the installed miniclaw/testing", async () => {
    expect(JSON.parse(await readFile(join(app, "package.json"), "utf8")).type).toBe("commonjs");
    const testing = (await import(pathToFileURL(join(app, "node_modules", "miniclaw", "dist", "pkg", "testing", "index.js")).href)) as typeof import("../src/testing/index.js");
    const model = await testing.startScriptedModel([
      { match: { toolResult: { name: "weather" } }, reply: "Take an umbrella: {{tool_result}}." },
      { match: "umbrella", reply: { toolUses: [{ name: "weather", input: { city: "Lyon" } }] } },
    ]);
    try {
      const out = await run(process.execPath, ["agent.mjs"], { cwd: app, env: userEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) });
      expect(model.rejected).toEqual([]);
      expect(out.stderr).toBe("");
      const lines = out.stdout.split("\n");
      expect(lines.slice(0, 2)).toEqual(["→ weather", "Take an umbrella: Sunny and 21°C in Lyon."]);
      expect(lines[2]).toMatch(/^end_turn \{/);
      expect(model.requests).toHaveLength(2);
      expect(existsSync(join(app, "assistant", "agents", "main", "SOUL.md"))).toBe(true);
      expect(existsSync(join(app, "assistant", "sessions", "agent#main#main.jsonl"))).toBe(true);
    } finally {
      await model.close();
    }
  });

  it("runs the structured-output example as written, printing the typed answer", async () => {
    const testing = (await import(pathToFileURL(join(app, "node_modules", "miniclaw", "dist", "pkg", "testing", "index.js")).href)) as typeof import("../src/testing/index.js");
    const model = await testing.startScriptedModel([{ match: "umbrella", reply: '{"umbrella":true,"reason":"rain from 3 pm"}' }]);
    try {
      const out = await run(process.execPath, ["forecast.mjs"], { cwd: app, env: userEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) });
      expect(model.rejected).toEqual([]);
      expect(out.stderr).toBe("");
      expect(out.stdout).toBe("take it: rain from 3 pm\n");
      expect(model.requests[0]!.body.output_config).toMatchObject({ format: { type: "json_schema" } });
    } finally {
      await model.close();
    }
  });

  it("type-checks as agent.mts under the defaults of tsc --init", async () => {
    const ts = join(dir, "ts");
    await mkdir(ts);
    await run(process.execPath, [TSC, "--init"], { cwd: ts });
    await copyFile(join(app, "agent.mjs"), join(ts, "agent.mts"));
    // The structured example too, whose result.output must be typed from the schema.
    await writeFile(join(ts, "forecast.mts"), `${await readFile(join(app, "forecast.mjs"), "utf8")}\nconst typed: boolean | undefined = result.output?.umbrella;\nvoid typed;\n`);
    await writeFile(join(ts, "package.json"), JSON.stringify({ name: "ts", type: "commonjs" }));
    // The app's node_modules, as if the file were saved beside agent.mjs.
    await symlink(join(app, "node_modules"), join(ts, "node_modules"), "dir");
    const checked = await run(process.execPath, [TSC, "--noEmit", "-p", ts], { cwd: ts }).catch((error: { stdout: string }) => error);
    expect(checked.stdout).toBe("");
  }, 60_000);

  it("type-checks every js and ts block of the README and docs/ under the defaults of tsc --init with Node's types, as .mts files", async () => {
    const checks = join(dir, "blocks");
    await mkdir(join(checks, "node_modules"), { recursive: true });
    await run(process.execPath, [TSC, "--init"], { cwd: checks });
    // As tsc --init's own comment says for Node programs (the pages use process): Node's types on.
    const config = join(checks, "tsconfig.json");
    await writeFile(config, (await readFile(config, "utf8")).replace('"types": []', '"types": ["node"]'));
    await writeFile(join(checks, "package.json"), JSON.stringify({ name: "blocks", type: "commonjs" }));
    // What the installed app has, plus what a page asks its reader to install beside it (MCP's SDK) and Node's types.
    for (const name of await readdir(join(app, "node_modules"))) if (!name.startsWith(".")) await symlink(join(app, "node_modules", name), join(checks, "node_modules", name), "dir");
    await symlink(join(ROOT, "node_modules", "@modelcontextprotocol"), join(checks, "node_modules", "@modelcontextprotocol"), "dir");
    if (!existsSync(join(checks, "node_modules", "@types"))) await symlink(join(ROOT, "node_modules", "@types"), join(checks, "node_modules", "@types"), "dir");
    const pages = ["README.md", ...(await readdir(join(ROOT, "docs"))).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    let count = 0;
    for (const page of pages) {
      for (const [, code] of (await readFile(join(ROOT, page), "utf8")).matchAll(/^```(?:js|ts)\n([\s\S]*?)^```$/gm)) {
        await writeFile(join(checks, `${page.replace(/\W/g, "-")}-${++count}.mts`), `export {};\n${code}`);
      }
    }
    expect(count).toBeGreaterThanOrEqual(6);
    const checked = await run(process.execPath, [TSC, "--noEmit", "-p", checks], { cwd: checks }).catch((error: { stdout: string }) => error);
    expect(checked.stdout).toBe("");
  }, 60_000);

  it("runs docs/library.md's offline test of an agent as written: the scripted reply, one request, none rejected", async () => {
    await writeFile(join(app, "offline.mjs"), await readmeExample("Testing your agents offline", "docs/library.md"));
    const out = await run(process.execPath, ["offline.mjs"], { cwd: app, env: userEnv() });
    expect(out.stderr).toBe("");
    expect(out.stdout).toBe("Hi! How can I help? 1 0\n");
  });

  it("without credentials fails with what to set, not with a script of miniclaw's own repository", async () => {
    const failed = await run(process.execPath, ["agent.mjs"], { cwd: app, env: userEnv() }).catch((error: { code: number; stderr: string }) => error);
    expect("code" in failed && failed.code).toBe(1);
    expect(failed.stderr).toMatch(/MissingCredentialsError: miniclaw needs credentials .*ANTHROPIC_API_KEY/);
    expect(failed.stderr).toContain("fixedBy: 'person'");
    expect(failed.stderr).not.toMatch(/npm run demo/);
  });

  it("installs without a warning: no install script, of its own or of a dependency", async () => {
    expect(installed.stderr).toBe("");
    const pkg = JSON.parse(await readFile(join(app, "node_modules", "miniclaw", "package.json"), "utf8")) as { scripts?: Record<string, string> };
    expect(Object.keys(pkg.scripts ?? {}).filter((name) => /^(pre|post)?install$|^prepare$/.test(name))).toEqual([]);
    expect(existsSync(join(app, "node_modules", "tree-sitter-bash"))).toBe(false);
  });

  it("ships the licence and the workspace templates, and nothing a run wrote", async () => {
    const pkg = join(app, "node_modules", "miniclaw");
    const license = await readFile(join(pkg, "LICENSE"), "utf8");
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the miniclaw authors\n/);
    expect(JSON.parse(await readFile(join(pkg, "package.json"), "utf8")).license).toBe("MIT");
    for (const file of ["agents/main/SOUL.md", "agents/researcher/SOUL.md", "cron.json", "HEARTBEAT.md", "README.md"]) {
      expect(await readFile(join(pkg, "workspace", file), "utf8")).toBe(await readFile(join(ROOT, "workspace", file), "utf8"));
    }
    expect((await readdir(join(pkg, "workspace"))).sort()).toEqual(["HEARTBEAT.md", "README.md", "agents", "cron.json"]);
  });
});
