// `miniclaw mcp add` and `mcp remove`: the workspace's mcp.json edited as `claude mcp add` does, written only once the user confirms.
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { parseJsonConfig, readConfigText } from "../fs/config-file.js";
import { MCP_CONFIG_FILE, parseMcpConfig } from "../mcp/config.js";
import { CredentialStore, MCP_CREDENTIALS_FILE } from "../mcp/credential-store.js";
import type { CliArgs } from "./args.js";
import type { CliIo } from "./io.js";
import { visibleText } from "./visible-text.js";

type Entry = Record<string, unknown>;
type Servers = Record<string, Entry>;

/** `mcp add NAME URL` (`--transport sse`, `-H`) or `mcp add NAME -- COMMAND ARGS` (`-e`): shows the entry, asks unless `-y`, adds it to mcp.json; ConfigError as mcp.json would give; 1 on no. */
export async function mcpAdd(args: CliArgs, io: CliIo, workspace: string): Promise<number> {
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
export async function mcpRemove(args: CliArgs, io: CliIo, workspace: string): Promise<number> {
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
  const answer = await readLine(io.stdin);
  if (!io.stdin.isTTY) io.stdout.write(`${answer ?? ""}\n`);
  return /^y(es)?$/i.test((answer ?? "").trim());
}

function notWritten(io: CliIo): number {
  io.stdout.write("Not written.\n");
  return 1;
}

/** One line of `stdin`, or undefined at its end. */
function readLine(stdin: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buffered = "";
    const onData = (chunk: Buffer | string): void => {
      buffered += chunk.toString();
      const end = buffered.indexOf("\n");
      if (end >= 0) finish(buffered.slice(0, end));
    };
    const onEnd = (): void => finish(buffered === "" ? undefined : buffered);
    const finish = (line: string | undefined): void => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.pause();
      resolve(line);
    };
    stdin.on("data", onData);
    stdin.once("end", onEnd);
    stdin.resume();
  });
}
