// docs/mcp.md as a user copies it: its mcp.json read by miniclaw, its library example run against the scripted model.
import { execFile } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readMcpConfig } from "../../src/mcp/config.js";
import { validateRequest } from "../../src/testing/index.js";
import { cleanEnv } from "../helpers/cli.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { tempDir } from "../helpers/temp-dir.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const scripted = scriptedModelPerTest();

/** The first block of `language` in docs/mcp.md. */
async function readmeBlock(language: "json" | "js"): Promise<string> {
  const section = await readFile(join(ROOT, "docs", "mcp.md"), "utf8");
  const code = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "m").exec(section)?.[1];
  if (!code) throw new Error(`no \`\`\`${language} block in docs/mcp.md`);
  return code;
}

describe("docs/mcp.md", () => {
  it("shows an mcp.json that miniclaw reads, its ${VAR} references taken from the environment", async () => {
    const workspace = await tempDir("miniclaw-readme-mcp-");
    await writeFile(join(workspace, "mcp.json"), await readmeBlock("json"));
    const servers = await readMcpConfig(workspace, { GITHUB_TOKEN: "gh-token", DOCS_TOKEN: "docs-token" });
    expect(servers).toEqual({
      github: {
        type: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github"],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "gh-token" },
        readOnly: ["get_*", "list_*", "search_*"],
      },
      docs: {
        type: "http",
        url: "https://mcp.example.com/mcp",
        headers: { Authorization: "Bearer docs-token" },
        tools: { exclude: ["delete_*"] },
        timeoutMs: 30000,
      },
    });
  });

  it("has a library example that runs as written: an in-process server's read-only tool called in a turn", async () => {
    const model = await scripted([
      { match: { toolResult: { name: "mcp__words__count_words" } }, reply: "{{tool_result}} words" },
      { reply: { toolUses: [{ name: "mcp__words__count_words", input: { text: "to be or not to be" } }] } },
    ]);
    // A folder where `miniclaw` is this package (its built dist/) and the SDK and zod are the ones it was built with.
    const app = await tempDir("miniclaw-readme-mcp-");
    await mkdir(join(app, "node_modules"));
    await symlink(ROOT, join(app, "node_modules", "miniclaw"), "dir");
    for (const dep of ["@modelcontextprotocol", "zod"]) await symlink(join(ROOT, "node_modules", dep), join(app, "node_modules", dep), "dir");
    await writeFile(join(app, "words.mjs"), await readmeBlock("js"));
    const { stdout } = await run(process.execPath, ["words.mjs"], { cwd: app, env: cleanEnv({ ANTHROPIC_BASE_URL: model.baseURL, ANTHROPIC_API_KEY: "x" }) });
    expect(stdout).toBe("6 words\n");
    const tools = (model.requests[0]!.body.tools ?? []) as Array<{ name: string }>;
    expect(tools.map((tool) => tool.name)).toContain("mcp__words__count_words");
    for (const request of model.requests) expect(validateRequest(request.body)).toBeNull();
  });
});
