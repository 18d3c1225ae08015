// Signing in to an http MCP server: a run names the server and the command to run; `miniclaw mcp login` signs in through the browser and keeps the tokens in a 0600 file.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, runMain } from "../helpers/cli.js";
import { ISSUED_TOKEN, startOAuthMcpServer, type OAuthMcpServer } from "../helpers/mcp-oauth.js";
import { scriptedModelPerTest } from "../helpers/turn.js";
import { mcpWorkspace } from "../cli/mcp-workspace.js";

const BROWSER = `${process.execPath} ${fileURLToPath(new URL("../fixtures/mcp/browser.mjs", import.meta.url))}`;
const scripted = scriptedModelPerTest();
const servers: OAuthMcpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function protectedWorkspace() {
  const server = await startOAuthMcpServer();
  servers.push(server);
  return { server, ...(await mcpWorkspace({ docs: { type: "http", url: server.url } })) };
}

describe("MCP sign-in", () => {
  it("in run, names a server that needs sign-in in one line saying what to run, and the turn goes on", async () => {
    const { server, dir, workspace } = await protectedWorkspace();
    const m = await scripted([{ reply: "hello" }]);
    const run = await runMain(["run", "--workspace", workspace, "hi"], { env: cleanEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: m.baseURL }), cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("hello\n");
    const warnings = run.stderr.split("\n").filter((line) => line.startsWith("warning:"));
    expect(warnings).toEqual([`warning: MCP server "docs" left out: ${server.url}: needs sign-in: run "miniclaw mcp login docs"`]);
  });

  it("signs in through the browser with PKCE and the resource, keeps the tokens in a file only the user can read, never prints them, then connects", async () => {
    const { server, dir, workspace } = await protectedWorkspace();
    const env = cleanEnv({ BROWSER });
    const login = await runMain(["mcp", "login", "docs", "--workspace", workspace], { env, cwd: dir });
    expect(login.stderr).toBe("");
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/^To sign in to "docs", open this page \(it comes back to miniclaw on 127\.0\.0\.1\):\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    expect(login.stdout).toMatch(/\nSigned in to "docs" \(\d+ tools\)\. Its tokens are in .*mcp-credentials\.json, readable by you alone\.\n$/);
    expect(login.stdout).not.toContain(ISSUED_TOKEN);
    const asked = server.authorizations[0]!;
    expect({ method: asked.get("code_challenge_method"), resource: asked.get("resource"), client: asked.get("client_id") }).toEqual({ method: "S256", resource: server.url, client: "client-1" });
    expect((await stat(join(workspace, "mcp-credentials.json"))).mode & 0o777).toBe(0o600);
    const list = await runMain(["mcp", "--workspace", workspace], { env: cleanEnv(), cwd: dir });
    expect(list.stdout).toMatch(/\n {2}docs {2}http {2}connected {2}\d+ tools\n/);
    expect(server.authorizations).toHaveLength(1);
  });

  it("refuses to sign in to a server that is started as a command, in one line", async () => {
    const { dir, workspace } = await mcpWorkspace({ files: { command: "true" } });
    const login = await runMain(["mcp", "login", "files", "--workspace", workspace], { env: cleanEnv(), cwd: dir });
    expect({ code: login.code, stderr: login.stderr }).toEqual({ code: 1, stderr: 'MCP server "files" is started as a command: only http servers sign in\n' });
  });
});
