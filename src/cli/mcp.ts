// `miniclaw mcp` and the REPL's `/mcp`: the MCP servers of mcp.json, their state and their tools, one listing for both.
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import { MCP_CONFIG_FILE } from "../mcp/config.js";
import type { McpHub, McpServerStatus } from "../mcp/hub.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import { openMcpHub } from "../mcp/index.js";
import { ensureWorkspace, resolveWorkspace } from "../runtime/workspace.js";
import { isSecretVariable } from "../gate/secret-env.js";
import type { CliArgs } from "./args.js";
import { stopOnSignals, type CliIo } from "./io.js";
import { visibleLine, visibleText } from "./visible-text.js";

/** What one server's reason may take on its line: a server's stderr can be long. */
const REASON_COLUMNS = 300;

/** Connects mcp.json's servers, prints their listing, stops them: 0 (with none, says how to add one). A bad mcp.json is a ConfigError; SIGINT/SIGTERM while connecting: 130/143. No credentials. */
export async function mcpCommand(args: CliArgs, io: CliIo): Promise<number> {
  const [verb = "list", ...rest] = args.words;
  if (!["list", "add", "remove", "login"].includes(verb) || (verb === "list" && rest.length > 0)) {
    throw new ConfigError(`miniclaw mcp takes list, add, remove or login (got "${args.words.join(" ")}"); see miniclaw --help`);
  }
  if ((args.mcpTransport ?? args.mcpEnv ?? args.mcpHeaders) !== undefined && verb !== "add") throw new ConfigError("--transport, -e and -H go with miniclaw mcp add");
  const workspace = resolveWorkspace(io.cwd, args.workspace, io.env);
  if (await ensureWorkspace(workspace)) io.stderr.write(`Created a new workspace at ${workspace} from the templates.\n`);
  if (verb === "add") return (await import("./mcp-edit.js")).mcpAdd(args, io, workspace);
  if (verb === "remove") return (await import("./mcp-edit.js")).mcpRemove(args, io, workspace);
  if (verb === "login") return (await import("./mcp-login.js")).mcpLogin(args, io, workspace);
  const warn = (message: string): void => void io.stderr.write(`warning: ${visibleText(message, { keepLineBreaks: true })}\n`);
  // Failures are in the listing; said once there, not again as warnings.
  const hub = await openMcpHub(workspace, io.env, warn, { reportFailures: false });
  if (!hub) {
    io.stdout.write(`${noMcpServers(workspace)}\n`);
    return 0;
  }
  // The servers are our children: they must not find secrets in /proc/<our pid>/environ either.
  if (io.env === process.env) hideSecretsFromProcEnviron(isSecretVariable);
  let stop = (): void => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const signalled = stopOnSignals(io, ["SIGINT", "SIGTERM"], () => stop());
  try {
    await Promise.race([hub.connect(), stopped]);
    if (signalled.code === undefined) io.stdout.write(`${listMcpServers(hub, join(workspace, MCP_CONFIG_FILE))}\n`);
    return signalled.code ?? 0;
  } finally {
    await hub.close();
    signalled.off();
  }
}

/** The listing under a header naming its source: per server its name, transport and state (its tool count, or why it failed), then its tools, read-only ones marked; reasons escaped. */
export function listMcpServers(hub: McpHub, source: string): string {
  const servers = hub.status();
  const nameWidth = Math.max(...servers.map((s) => s.name.length));
  const transportWidth = Math.max(...servers.map((s) => s.transport.length));
  const lines = servers.flatMap((server) => {
    const head = `${server.name.padEnd(nameWidth)}  ${server.transport.padEnd(transportWidth)}  ${stateOf(server)}`;
    const tools = server.state === "connected" || server.state === "stopped" ? server.tools : [];
    const extra = server.state === "connected" && server.resources + server.prompts > 0 ? [`  (${server.resources} resources, ${server.prompts} prompts)`] : [];
    return [head, ...tools.map((tool) => `  ${tool}${server.readOnly.includes(tool) ? "  (read-only)" : ""}`), ...extra];
  });
  return [`MCP servers of ${visibleLine(source, 200)}:`, ...lines.map((line) => `  ${line}`)].join("\n");
}

/** What to say when the workspace has no server: where the file goes and an example (a stdio server and an http one) to paste as it is. */
export function noMcpServers(workspace: string): string {
  const file = visibleLine(join(workspace, MCP_CONFIG_FILE), 200);
  return [
    `No MCP servers: ${file} lists none. Write it as, for example:`,
    `  {"mcpServers": {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]},`,
    `                  "docs": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer \${DOCS_TOKEN}"}}}}`,
    "then run miniclaw mcp to see them connect and list their tools (docs/mcp.md has every field).",
  ].join("\n");
}

function stateOf(server: McpServerStatus): string {
  const count = `${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}`;
  const reason = server.error === undefined ? "" : `: ${visibleLine(server.error, REASON_COLUMNS)}`;
  if (server.state === "connected") return `connected  ${count}`;
  if (server.state === "stopped") return `stopped${reason}  ${count}`;
  if (server.state === "failed") return `failed${reason}`;
  if (server.state === "disabled" && server.error !== undefined) return `left out${reason}`;
  return server.state;
}
