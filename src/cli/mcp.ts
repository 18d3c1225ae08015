// `miniclaw mcp`: list the servers of mcp.json (one listing with the REPL's `/mcp`), add or remove one (mcp.json edited as `claude mcp add` does,
// written only once the user confirms), sign in to one (the authorization page opened with $BROWSER or printed).
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ConfigError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { parseJsonConfig, readConfigText } from "../fs/config-file.js";
import { CredentialStore } from "../mcp/credential-store.js";
import { MCP_CONFIG_FILE, MCP_CREDENTIALS_FILE, openMcpHub, parseMcpConfig, signInToServer, type McpHub, type McpServerStatus } from "../mcp/index.js";
import { hideSecretsFromProcEnviron } from "../model/environ-hiding.js";
import { isSecretVariable } from "../gate/secret-env.js";
import type { CliArgs } from "./args.js";
import { stopOnSignals, type CliIo } from "./io.js";
import { readyWorkspace } from "./setup.js";
import { visibleLine, visibleText } from "./visible-text.js";

/** What one server's reason may take on its line: a server's stderr can be long. */
const REASON_COLUMNS = 300;

/** `mcp add|remove|login`, or list: connects mcp.json's servers, prints their listing, stops them: 0 (with none, says how to add one). A bad mcp.json is a ConfigError; SIGINT/SIGTERM while connecting: 130/143. No credentials. */
export async function mcpCommand(args: CliArgs, io: CliIo): Promise<number> {
  const [verb = "list", ...rest] = args.words;
  if (!["list", "add", "remove", "login"].includes(verb) || (verb === "list" && rest.length > 0)) {
    throw new ConfigError(`miniclaw mcp takes list, add, remove or login (got "${args.words.join(" ")}"); see miniclaw --help`);
  }
  const workspace = await readyWorkspace(args, io);
  if (verb === "add") return mcpAdd(args, io, workspace);
  if (verb === "remove") return mcpRemove(args, io, workspace);
  if (verb === "login") return mcpLogin(args, io, workspace);
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

type Entry = Record<string, unknown>;
type Servers = Record<string, Entry>;

/** `mcp add NAME URL` (`--transport sse`, `-H`) or `mcp add NAME -- COMMAND ARGS` (`-e`): shows the entry, asks unless `-y`, adds it to mcp.json; ConfigError as mcp.json would give; 1 on no. */
async function mcpAdd(args: CliArgs, io: CliIo, workspace: string): Promise<number> {
  const [name, target, ...rest] = args.words.slice(1);
  if (name === undefined || target === undefined) throw new ConfigError("usage: miniclaw mcp add NAME URL, or miniclaw mcp add NAME -- COMMAND [ARGS...]");
  const file = join(workspace, MCP_CONFIG_FILE);
  const servers = await readServers(file);
  if (servers[name] !== undefined) throw new ConfigError(`${file} already has a server "${name}": remove it first (miniclaw mcp remove ${name})`);
  const entry = entryOf(target, rest, args);
  // Checked as the file will be read, with the variables it names left as written.
  parseMcpConfig({ mcpServers: { [name]: entry } }, file, {}, workspace);
  io.stdout.write(`${visibleText(`"${name}": ${JSON.stringify(entry)}`)}\n`);
  if (!(await confirm(args, io, `Add it to ${file}? [y/N] `))) return notWritten(io);
  await writeServers(file, { ...servers, [name]: entry });
  io.stdout.write(`Added "${name}" to ${file}; miniclaw mcp connects it and lists its tools.\n`);
  return 0;
}

/** `mcp remove NAME`: asks (unless `-y`), removes the entry and its sign-in; 0 once removed, 1 when the user says no. */
async function mcpRemove(args: CliArgs, io: CliIo, workspace: string): Promise<number> {
  const name = args.words[1];
  if (name === undefined || args.words.length > 2) throw new ConfigError("usage: miniclaw mcp remove NAME");
  const file = join(workspace, MCP_CONFIG_FILE);
  const servers = await readServers(file);
  const entry = servers[name];
  if (entry === undefined) throw new ConfigError(`${file} has no server "${name}"${Object.keys(servers).length > 0 ? `; it has ${Object.keys(servers).join(", ")}` : ""}`);
  if (!(await confirm(args, io, `Remove "${name}" from ${file}? [y/N] `))) return notWritten(io);
  const { [name]: _removed, ...others } = servers;
  await writeServers(file, others);
  if (typeof entry["url"] === "string") await new CredentialStore(join(workspace, MCP_CREDENTIALS_FILE)).update(name, entry["url"], () => undefined);
  io.stdout.write(`Removed "${name}" from ${file}.\n`);
  return 0;
}

function entryOf(target: string, rest: string[], { mcpTransport, mcpEnv = [], mcpHeaders = [] }: CliArgs): Entry {
  const transport = mcpTransport ?? (/^https?:\/\//.test(target) ? "http" : "stdio");
  if (!["stdio", "http", "sse"].includes(transport)) throw new ConfigError("--transport must be one of: stdio, http, sse");
  if (transport === "stdio") {
    if (mcpHeaders.length > 0) throw new ConfigError("-H (a header) goes with an http or sse server; a command takes -e KEY=VALUE");
    const env = Object.fromEntries(mcpEnv.map((pair) => split(pair, "=", "-e takes KEY=VALUE")));
    return { command: target, ...(rest.length > 0 && { args: rest }), ...(mcpEnv.length > 0 && { env }) };
  }
  if (mcpEnv.length > 0) throw new ConfigError("-e (an environment variable) goes with a command; an http server takes -H \"Name: value\"");
  if (rest.length > 0) throw new ConfigError(`an ${transport} server takes one URL; got ${rest.length + 1} words`);
  const headers = Object.fromEntries(mcpHeaders.map((pair) => split(pair, ":", '-H takes "Name: value"')));
  return { type: transport, url: target, ...(mcpHeaders.length > 0 && { headers }) };
}

function split(pair: string, separator: string, usage: string): [string, string] {
  const at = pair.indexOf(separator);
  if (at <= 0) throw new ConfigError(`${usage} (got "${pair}")`);
  return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
}

/** The servers of mcp.json as written (variables unexpanded); none when it does not exist. */
async function readServers(file: string): Promise<Servers> {
  const text = await readConfigText(file, { optional: true });
  if (text === undefined) return {};
  const servers = (parseJsonConfig(text, file) as { mcpServers?: unknown })?.mcpServers;
  if (typeof servers !== "object" || servers === null || Array.isArray(servers)) throw new ConfigError(`${file}: expected {"mcpServers": {...}}`);
  return servers as Servers;
}

async function writeServers(file: string, servers: Servers): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`);
}

/** `-y`, or a line from the user starting with y; no answer (end of input) is no. */
async function confirm(args: CliArgs, io: CliIo, question: string): Promise<boolean> {
  if (args.yes === true) return true;
  io.stdout.write(question);
  const lines = createInterface({ input: io.stdin, terminal: false });
  const answer = await new Promise<string | undefined>((resolve) => {
    lines.once("line", resolve);
    lines.once("close", () => resolve(undefined));
  });
  lines.close();
  if (!io.stdin.isTTY) io.stdout.write(`${answer ?? ""}\n`);
  return /^y(es)?$/i.test((answer ?? "").trim());
}

function notWritten(io: CliIo): number {
  io.stdout.write("Not written.\n");
  return 1;
}

/** Signs in to one server of mcp.json (the page opened with `$BROWSER URL`, else printed; the browser returns to 127.0.0.1) and says where the tokens went. 0, or one line naming the server. */
async function mcpLogin(args: CliArgs, io: CliIo, workspace: string): Promise<number> {
  const name = args.words[1];
  if (name === undefined || args.words.length > 2) throw new ConfigError("usage: miniclaw mcp login NAME");
  const browser = io.env["BROWSER"]?.trim();
  const outcome = await signInToServer(workspace, name, io.env, {
    open: (url) => {
      io.stdout.write(`To sign in to "${name}", open this page (it comes back to miniclaw on 127.0.0.1):\n  ${url.href}\n`);
      if (browser) openWith(browser, url.href, io);
    },
  }).catch((error: unknown) => {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  });
  const file = join(workspace, MCP_CREDENTIALS_FILE);
  if (!outcome.signedIn) io.stdout.write(`"${name}" connected without asking for sign-in (${outcome.tools} tools); nothing was stored.\n`);
  else io.stdout.write(`Signed in to "${name}" (${outcome.tools} tools). Its tokens are in ${visibleLine(file, 200)}, readable by you alone.\n`);
  return 0;
}

/** Runs `$BROWSER URL` through the shell (BROWSER may hold arguments), detached and silent; a failure is one line. */
function openWith(browser: string, url: string, io: CliIo): void {
  const child = spawn("/bin/sh", ["-c", `${browser} "$1"`, "sh", url], { detached: true, stdio: "ignore", env: io.env });
  child.on("error", (error) => io.stderr.write(`could not run BROWSER (${error.message}): open the page above by hand\n`));
  child.unref();
}
