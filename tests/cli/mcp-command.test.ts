import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "vitest";
import { parseMcpConfig } from "../../src/mcp/config.js";
import { cleanEnv, runCli, runMain } from "../helpers/cli.js";
import { fixtureEntry, fixtureProcesses, mcpWorkspace, uniqueServerName } from "./mcp-workspace.js";

// `miniclaw mcp` needs no credentials: it calls no model.
describe.concurrent("miniclaw mcp", () => {
  it("connects the servers and lists each with its transport and state, its tools indented and the read-only ones marked, then stops them", async ({ expect }) => {
    const name = uniqueServerName();
    const { dir, workspace } = await mcpWorkspace({
      [name]: fixtureEntry(name, { readOnly: ["echo", "add"], tools: { exclude: ["very.*"] } }),
      dead: fixtureEntry(`${name}-dead`, {}, "--never-start"),
      hung: fixtureEntry(`${name}-hung`, { connectTimeoutMs: 300 }, "--hang"),
      off: { command: "no-such-program", enabled: false },
    });
    const run = await runMain(["mcp", "--workspace", workspace], { env: cleanEnv(), cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toEqual([
      `MCP servers of ${join(workspace, "mcp.json")}:`,
      expect.stringMatching(new RegExp(`^  dead {${name.length - 4}}  stdio  failed: .*\\(stderr: fixture server ${name}-dead: refusing to start \\(--never-start\\)\\)$`)),
      `  ${name}  stdio  connected  9 tools`,
      `    mcp__${name}__add  (read-only)`,
      `    mcp__${name}__add_tool`,
      `    mcp__${name}__crash`,
      `    mcp__${name}__echo  (read-only)`,
      `    mcp__${name}__env`,
      `    mcp__${name}__fail`,
      `    mcp__${name}__image`,
      `    mcp__${name}__slow`,
      `    mcp__${name}__spawn_child`,
      expect.stringMatching(new RegExp(`^  ${"hung".padEnd(name.length)}  stdio  failed: \\S+ \\S+ --name ${name}-hung --hang: did not connect within 0\\.3 s$`)),
      `  ${"off".padEnd(name.length)}  stdio  disabled`,
      "",
    ]);
    // Each failure is said once, in the listing: not again as a warning.
    expect(run.stderr).toBe("");
    expect(fixtureProcesses(name)).toEqual([]);
    expect(fixtureProcesses(`${name}-hung`)).toEqual([]);
  });

  it("without an mcp.json says so and how to write one, with an example that is a valid mcp.json, and exits 0", async ({ expect }) => {
    const { dir, workspace } = await mcpWorkspace(undefined);
    const run = await runMain(["mcp", "--workspace", workspace], { env: cleanEnv(), cwd: dir });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe(`No MCP servers: ${join(workspace, "mcp.json")} lists none. Write it as, for example:`);
    const example = JSON.parse(`${lines[1]}${lines[2]}`) as unknown;
    const servers = parseMcpConfig(example, "the example", { DOCS_TOKEN: "t" }, workspace);
    expect(Object.keys(servers)).toEqual(["files", "docs"]);
    expect(servers["docs"]).toMatchObject({ type: "http", headers: { Authorization: "Bearer t" } });
    expect(lines[3]).toMatch(/^then run miniclaw mcp/);
  });

  it("an mcp.json listing no server is the same advice", async ({ expect }) => {
    const { dir, workspace } = await mcpWorkspace({});
    const run = await runMain(["mcp", "--workspace", workspace], { env: cleanEnv(), cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^No MCP servers: .* lists none\./);
  });

  it("stops at a bad mcp.json with one line naming the file, the server and the field, and exit 1 (the binary)", async ({ expect }) => {
    const { dir, workspace } = await mcpWorkspace(undefined);
    const file = join(workspace, "mcp.json");
    await writeFile(file, JSON.stringify({ mcpServers: { github: { command: "gh-mcp", args: "serve" } } }));
    const run = await runCli(["mcp", "--workspace", workspace], { env: cleanEnv(), cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: server "github": field "args" .*\n$`));
    expect(run.stderr.split("\n")).toHaveLength(2);
    expect(await readFile(file, "utf8")).toContain("gh-mcp");
  });

  it("is listed by --help, and takes list, add, remove or login", async ({ expect }) => {
    const help = await runMain(["--help"]);
    expect(help.stdout).toMatch(/\n {2}mcp \[list\] {2,}the MCP servers of workspace\/mcp\.json/);
    const { dir, workspace } = await mcpWorkspace(undefined);
    const run = await runMain(["mcp", "show", "--workspace", workspace], { env: cleanEnv(), cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('miniclaw mcp takes list, add, remove or login (got "show"); see miniclaw --help\n');
  });
});
