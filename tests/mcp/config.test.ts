import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { McpServer } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { DEFAULT_MCP_CONNECT_TIMEOUT_MS, DEFAULT_MCP_TIMEOUT_MS, MCP_CONFIG_FILE, parseMcpConfig, readMcpConfig } from "../../src/mcp/config.js";
import { tempDir } from "../helpers/temp-dir.js";

const FILE = "workspace/mcp.json";
const ENV = { GITHUB_TOKEN: "ghp_exampletoken123", HOME: "/home/ada", EMPTY: "" };

/** As read from a workspace's mcp.json (the workspace given). */
const parseFile = (value: unknown, env: Record<string, string | undefined> = ENV) => parseMcpConfig(value, FILE, env, "/ws");
const errorOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toMatch(/\n/);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
};
const fileError = (servers: unknown): string => errorOf(() => parseFile({ mcpServers: servers }));

/** Claude Code's documented shape: a stdio server with env and an http server with a header from the environment. */
const CLAUDE_CODE_JSON = `{
  "mcpServers": {
    "filesystem": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "\${HOME}/projects"],
      "env": { "LOG_LEVEL": "\${LOG_LEVEL:-info}" }
    },
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": { "Authorization": "Bearer \${GITHUB_TOKEN}" }
    }
  }
}`;

const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});
async function tempWorkspace(): Promise<string> {
  const folder = await tempDir("miniclaw-mcp-config-");
  folders.push(folder);
  return folder;
}

describe("mcp.json", () => {
  it("reads a configuration pasted from Claude Code, variables expanded from the env given", async () => {
    const workspace = await tempWorkspace();
    await writeFile(join(workspace, MCP_CONFIG_FILE), CLAUDE_CODE_JSON);
    expect(await readMcpConfig(workspace, ENV)).toEqual({
      filesystem: {
        type: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada/projects"],
        env: { LOG_LEVEL: "info" },
      },
      github: { type: "http", url: "https://api.githubcopilot.com/mcp/", headers: { Authorization: "Bearer ghp_exampletoken123" } },
    });
  });

  it("returns undefined when the workspace has no mcp.json", async () => {
    expect(await readMcpConfig(await tempWorkspace(), ENV)).toBeUndefined();
    expect(await readMcpConfig(join(await tempWorkspace(), "not-created"), ENV)).toBeUndefined();
  });

  it("refuses a file that is not JSON, naming the file", async () => {
    const workspace = await tempWorkspace();
    await writeFile(join(workspace, MCP_CONFIG_FILE), '{"mcpServers": {');
    const error = await readMcpConfig(workspace, ENV).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(new RegExp(`^${join(workspace, MCP_CONFIG_FILE)}: not valid JSON: `));
  });

  it("refuses an mcp.json that cannot be read, naming the file", async () => {
    const workspace = await tempWorkspace();
    await mkdir(join(workspace, MCP_CONFIG_FILE));
    await expect(readMcpConfig(workspace, ENV)).rejects.toThrow(new RegExp(`^${join(workspace, MCP_CONFIG_FILE)}: cannot be read: `));
  });

  it("takes a relative cwd from the workspace folder", async () => {
    const workspace = await tempWorkspace();
    await writeFile(join(workspace, MCP_CONFIG_FILE), JSON.stringify({ mcpServers: { notes: { command: "node", args: ["server.js"], cwd: "tools/notes" } } }));
    expect(await readMcpConfig(workspace, ENV)).toEqual({ notes: { type: "stdio", command: "node", args: ["server.js"], cwd: join(workspace, "tools/notes") } });
  });

  it("keeps every optional setting and adds no defaults", () => {
    const common = { enabled: false, tools: { include: ["get_*"], exclude: ["get_secret"] }, readOnly: ["get_*", "list_?"], timeoutMs: 5_000, connectTimeoutMs: 2_000 };
    expect(parseFile({ mcpServers: { local: { command: "srv", ...common }, remote: { type: "http", url: "http://127.0.0.1:8080/mcp", ...common } } })).toEqual({
      local: { type: "stdio", command: "srv", ...common },
      remote: { type: "http", url: "http://127.0.0.1:8080/mcp", ...common },
    });
    expect([DEFAULT_MCP_TIMEOUT_MS, DEFAULT_MCP_CONNECT_TIMEOUT_MS]).toEqual([60_000, 10_000]);
  });

  it('reads "streamable-http", and a url without a type, as http', () => {
    expect(parseFile({ mcpServers: { a: { type: "streamable-http", url: "https://a.example/mcp" }, b: { url: "https://b.example/mcp" } } })).toEqual({
      a: { type: "http", url: "https://a.example/mcp" },
      b: { type: "http", url: "https://b.example/mcp" },
    });
  });

  it("expands ${VAR:-default} when the variable is unset or empty, and ${VAR} to an empty value as it is", () => {
    const servers = { s: { command: "${CMD:-node}", env: { A: "${UNSET:-fallback}", B: "${EMPTY:-fallback}", C: "${EMPTY}", D: "$HOME and ${HOME}" } } };
    expect(parseFile({ mcpServers: servers })).toEqual({ s: { type: "stdio", command: "node", env: { A: "fallback", B: "fallback", C: "", D: "$HOME and /home/ada" } } });
  });

  it("keeps the variables of a disabled server as written when they are unset, so it needs none of its secrets", () => {
    const servers = {
      off: { enabled: false, type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${NO_TOKEN}", X: "${HOME}" } },
      offLocal: { enabled: false, command: "srv", env: { KEY: "${NO_KEY}" } },
    };
    expect(parseFile({ mcpServers: servers })).toEqual({
      off: { enabled: false, type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${NO_TOKEN}", X: "/home/ada" } },
      offLocal: { enabled: false, type: "stdio", command: "srv", env: { KEY: "${NO_KEY}" } },
    });
    expect(fileError({ off: { enabled: false, command: 3 } })).toBe('workspace/mcp.json: server "off": field "command" must be a string (got a number)');
  });

  it("reads variables from the env given, not from the process, and expands a value only once", () => {
    expect(process.env["MINICLAW_TEST_ONLY_IN_ENV"]).toBeUndefined();
    const env = { MINICLAW_TEST_ONLY_IN_ENV: "${HOME}" };
    expect(parseFile({ mcpServers: { s: { command: "x", args: ["${MINICLAW_TEST_ONLY_IN_ENV}"] } } }, env)).toEqual({ s: { type: "stdio", command: "x", args: ["${HOME}"] } });
  });
});

describe("mcp.json refusals", () => {
  it.each([
                ["a reference that is not a variable", { g: { command: "x", env: { A: "${A-b}" } } },
      'workspace/mcp.json: server "g": field "env.A" holds ${A-b}, which is not a variable: write ${NAME} or ${NAME:-default}'],
        ["an in-process server in a file", { s: { type: "sdk", server: {} } },
      'workspace/mcp.json: server "s": field "type" is "sdk", which is for the library only (a file cannot hold a server object): use "command", or "type": "http" with "url"'],
    ["an unknown type", { s: { type: "websocket", url: "wss://x" } }, 'workspace/mcp.json: server "s": field "type" must be "stdio", "http" or "sse" (got "websocket")'],
    ["an unknown field", { s: { command: "x", autoApprovals: [] } },
      'workspace/mcp.json: server "s": unknown field "autoApprovals"; a stdio server takes type, command, args, env, cwd, enabled, tools, readOnly, timeoutMs, connectTimeoutMs'],
    ["fields of other tools, with what to write instead", { s: { command: "x", serverUrl: "u", transport: "stdio" } },
      'workspace/mcp.json: server "s": unknown fields "serverUrl", "transport" (use "url"; use "type"); a stdio server takes type, command, args, env, cwd, enabled, tools, readOnly, timeoutMs, connectTimeoutMs'],
    ["an oauth grant it does not know", { s: { url: "https://x.example", oauth: { grant: "password" } } },
      'workspace/mcp.json: server "s": field "oauth.grant" must be "authorization_code" (sign in as a person, the default) or "client_credentials" (a machine)'],
    ["client credentials without a secret", { s: { url: "https://x.example", oauth: { grant: "client_credentials", clientId: "c" } } },
      'workspace/mcp.json: server "s": field "oauth" with "grant": "client_credentials" needs "clientId" and "clientSecret" (or "privateKey")'],
    ["neither command nor url", { s: { args: ["x"] } },
      'workspace/mcp.json: server "s": field "command" is required: the program to start, or "type": "http" with "url" for a remote server'],
    ["both command and url", { s: { command: "x", url: "https://x.example" } },
      'workspace/mcp.json: server "s": field "url" cannot go with "command": give "command" for a stdio server, or "type": "http" with "url"'],
    ["a stdio type without a command", { s: { type: "stdio" } }, 'workspace/mcp.json: server "s": field "command" is required for a stdio server: the program to start'],
    ["an http type without a url", { s: { type: "http" } }, 'workspace/mcp.json: server "s": field "url" is required for an http server: its address, such as "https://example.com/mcp"'],
            ["a stdio field on an http server", { s: { type: "http", url: "https://x.example", env: {} } },
      'workspace/mcp.json: server "s": unknown field "env"; an http server takes type, url, headers, oauth, enabled, tools, readOnly, timeoutMs, connectTimeoutMs'],
    ["args that are not a list", { github: { command: "x", args: "--stdio" } }, 'workspace/mcp.json: server "github": field "args" must be a list of strings (got a string)'],
    ["args holding a number", { github: { command: "x", args: ["--port", 8080] } }, 'workspace/mcp.json: server "github": field "args" must be a list of strings (item 2 is a number)'],
    ["a command that is not a string", { s: { command: ["npx", "srv"] } }, 'workspace/mcp.json: server "s": field "command" must be a string (got a list)'],
    ["an empty command", { s: { command: " " } }, 'workspace/mcp.json: server "s": field "command" must not be empty'],
    ["an env value that is a number", { s: { command: "x", env: { PORT: 8080 } } }, 'workspace/mcp.json: server "s": field "env.PORT" must be a string (got a number)'],
    ["env as a list", { s: { command: "x", env: ["A=1"] } }, 'workspace/mcp.json: server "s": field "env" must be an object of strings, such as {"NAME": "value"} (got a list)'],
    ["a bad header name", { s: { type: "http", url: "https://x.example", headers: { "X Token": "v" } } }, 'workspace/mcp.json: server "s": field "headers" has "X Token", which is not a valid name'],
    ["a header value with a line break", { s: { type: "http", url: "https://x.example", headers: { "X-Token": "${A:-a\nb}" } } },
      'workspace/mcp.json: server "s": field "headers.X-Token" must be one line (it holds a line break or a NUL once expanded)'],
    ["a url that is not http", { s: { type: "http", url: "ftp://x.example" } }, 'workspace/mcp.json: server "s": field "url" must be an http:// or https:// address, such as "https://example.com/mcp"'],
    ["a url that is not an address", { s: { url: "localhost:8080" } }, 'workspace/mcp.json: server "s": field "url" must be an http:// or https:// address, such as "https://example.com/mcp"'],
    ["enabled as a string", { s: { command: "x", enabled: "false" } }, 'workspace/mcp.json: server "s": field "enabled" must be true or false (got a string)'],
    ["tools as a list", { s: { command: "x", tools: ["get_*"] } }, 'workspace/mcp.json: server "s": field "tools" must be an object such as {"include": ["get_*"], "exclude": ["delete_*"]} (got a list)'],
    ["an unknown tools setting", { s: { command: "x", tools: { allow: ["x"] } } }, 'workspace/mcp.json: server "s": field "tools.allow" is not a setting: "tools" takes "include" and "exclude"'],
    ["include with an empty glob", { s: { command: "x", tools: { include: [""] } } }, 'workspace/mcp.json: server "s": field "tools.include" must be a list of tool names or globs, such as ["get_*", "list_?"]'],
    ["readOnly as a string", { s: { command: "x", readOnly: "get_*" } }, 'workspace/mcp.json: server "s": field "readOnly" must be a list of tool names or globs, such as ["get_*", "list_?"]'],
    ["a zero timeout", { s: { command: "x", timeoutMs: 0 } }, 'workspace/mcp.json: server "s": field "timeoutMs" must be a whole number of milliseconds from 1 to 2147483647 (got 0)'],
    ["a negative connect timeout", { s: { command: "x", connectTimeoutMs: -5 } }, 'workspace/mcp.json: server "s": field "connectTimeoutMs" must be a whole number of milliseconds from 1 to 2147483647 (got -5)'],
    ["a timeout in text", { s: { command: "x", timeoutMs: "30s" } }, 'workspace/mcp.json: server "s": field "timeoutMs" must be a whole number of milliseconds from 1 to 2147483647 (got a string)'],
    ["a fractional timeout", { s: { command: "x", timeoutMs: 1.5 } }, 'workspace/mcp.json: server "s": field "timeoutMs" must be a whole number of milliseconds from 1 to 2147483647 (got 1.5)'],
    ["an entry that is not an object", { s: "npx srv" }, 'workspace/mcp.json: server "s" must be an object such as {"command": "..."} or {"type": "http", "url": "..."}'],
    ["an empty server name", { "": { command: "x" } }, 'workspace/mcp.json: server "": its name is empty: give each server a name of letters, digits, "_" and "-"'],
    ["a name with a dot", { "my.server": { command: "x" } }, 'workspace/mcp.json: server "my.server": its name may hold only letters, digits, "_" and "-" (it becomes part of tool names)'],
    ["a name with a double underscore", { my__server: { command: "x" } },
      'workspace/mcp.json: server "my__server": its name must not contain "__" or end with "_": "__" separates the server from the tool in mcp__<server>__<tool>'],
    ["a name ending with an underscore", { my_: { command: "x" } },
      'workspace/mcp.json: server "my_": its name must not contain "__" or end with "_": "__" separates the server from the tool in mcp__<server>__<tool>'],
    ["a __proto__ name", JSON.parse('{"__proto__": {"command": "x"}}'),
      'workspace/mcp.json: server "__proto__": its name must not contain "__" or end with "_": "__" separates the server from the tool in mcp__<server>__<tool>'],
    ["a name too long for tool names", { ["s".repeat(41)]: { command: "x" } },
      `workspace/mcp.json: server "${"s".repeat(41)}": its name is longer than 40 characters (it becomes part of tool names, which the API caps at 64)`],
  ])("refuses %s with one line naming the file, the server and the field", (_what, servers, message) => {
    expect(fileError(servers)).toBe(message);
  });

  it.each([
    ["a list", [], 'workspace/mcp.json: must be an object such as {"mcpServers": {"NAME": {"command": "..."} or {"type": "http", "url": "..."}}}'],
    ["the servers without their wrapper", { github: { command: "x" } },
      'workspace/mcp.json: unknown field "github": expected {"mcpServers": {"NAME": {"command": "..."} or {"type": "http", "url": "..."}}}'],
    ["another tool's top-level name", { servers: {} },
      'workspace/mcp.json: unknown field "servers" (the "servers" of other tools is called "mcpServers" here): expected {"mcpServers": {"NAME": {"command": "..."} or {"type": "http", "url": "..."}}}'],
    ["mcpServers as a list", { mcpServers: [] },
      'workspace/mcp.json: field "mcpServers" must be an object of servers by name: expected {"mcpServers": {"NAME": {"command": "..."} or {"type": "http", "url": "..."}}}'],
  ])("refuses a file whose top level is %s", (_what, value, message) => {
    expect(errorOf(() => parseFile(value))).toBe(message);
  });

  it("never shows a header value or an expanded url in a message", () => {
    const message = fileError({ s: { type: "http", url: "mailto:${GITHUB_TOKEN}", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } } });
    expect(message).not.toContain(ENV.GITHUB_TOKEN);
    expect(message).toContain('field "url"');
  });
});

describe("the library's mcpServers option", () => {
  const server = { connect: async (_transport: unknown): Promise<void> => {} };

  it("takes the servers object itself, or the file's wrapper, and keeps an in-process server as given", () => {
    const parsed = parseMcpConfig({ notes: { type: "sdk", server, readOnly: ["list_*"] } }, "options.mcpServers", {});
    expect(parsed).toEqual({ notes: { type: "sdk", server, readOnly: ["list_*"] } });
    expect(parsed["notes"]?.type === "sdk" && parsed["notes"].server).toBe(server);
    expect(parseMcpConfig({ mcpServers: { s: { command: "x" } } }, "options.mcpServers", {})).toEqual({ s: { type: "stdio", command: "x" } });
  });

  it("takes an McpServer of the official server SDK as an in-process server", () => {
    const mcp = new McpServer({ name: "inproc", version: "1.0.0" });
    const parsed = parseMcpConfig({ inproc: { type: "sdk", server: mcp } }, "options.mcpServers", {});
    expect(parsed["inproc"]?.type === "sdk" && parsed["inproc"].server).toBe(mcp);
  });

  it("takes a relative cwd from the process's working directory", () => {
    expect(parseMcpConfig({ s: { command: "x", cwd: "srv" } }, "options.mcpServers", {})).toEqual({ s: { type: "stdio", command: "x", cwd: resolve("srv") } });
  });

  it.each([
    ["an sdk server without an object", { s: { type: "sdk" } },
      'options.mcpServers: server "s": field "server" is required: an object with connect(transport), such as an McpServer of @modelcontextprotocol/server'],
    ["an sdk server with no connect method", { s: { type: "sdk", server: { listen() {} } } },
      'options.mcpServers: server "s": field "server" must be an MCP server object (got an object): an object with connect(transport), such as an McpServer of @modelcontextprotocol/server'],
    ["an unknown type", { s: { type: "ws" } }, 'options.mcpServers: server "s": field "type" must be "stdio", "http", "sse" or "sdk" (got "ws")'],
    ["a value that is not an object", "github", 'options.mcpServers: must be an object such as {"NAME": {"command": "..."} or {"type": "http", "url": "..."}}'],
  ])("refuses %s", (_what, value, message) => {
    expect(errorOf(() => parseMcpConfig(value, "options.mcpServers", {}))).toBe(message);
  });
});

describe("a misspelt field", () => {
  it("is named, rather than the field it was meant to be reported missing", () => {
    expect(() => parseMcpConfig({ mcpServers: { bad: { comand: "x" } } }, "mcp.json", {})).toThrow(
      'mcp.json: server "bad": unknown field "comand"; a stdio server takes type, command, args',
    );
  });
});

describe("mcp.json as users paste it", () => {
  it('reads "type": "sse" as an SSE server, and oauth settings as given', () => {
    expect(parseFile({ mcpServers: { old: { type: "sse", url: "https://x.example/sse", oauth: { clientId: "c1", callbackPort: 8765, scope: "read" } } } })).toEqual({
      old: { type: "sse", url: "https://x.example/sse", oauth: { clientId: "c1", callbackPort: 8765, scope: "read" } },
    });
  });

  it("ignores other clients' fields with one note per server, and reads disabled as enabled", () => {
    const notes: string[] = [];
    const config = parseMcpConfig({ mcpServers: { s: { command: "x", autoApprove: ["a"], alwaysAllow: [], disabled: true } } }, FILE, ENV, "/ws", notes);
    expect(config).toEqual({ s: { type: "stdio", command: "x", enabled: false } });
    expect(notes).toEqual(['workspace/mcp.json: server "s": ignored "autoApprove", "alwaysAllow" (another client\'s settings; miniclaw asks before each call unless "readOnly" lists the tool)']);
  });

  it("leaves out the one server whose variable is unset, saying which, and keeps the others", () => {
    const config = parseFile({ mcpServers: { g: { type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${GH_TOKEN}" } }, ok: { command: "x" } } });
    expect(config["ok"]).toEqual({ type: "stdio", command: "x" });
    expect(config["g"]).toMatchObject({ enabled: false, disabledReason: "it uses ${HOST}, ${GH_TOKEN}, which are not set: set HOST, GH_TOKEN in the environment, or write ${NAME:-default}" });
  });
});
