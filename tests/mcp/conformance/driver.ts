// The client the MCP conformance suite drives: miniclaw itself, one turn against the scripted model, with the suite's server in its mcp.json.
//   node --import tsx driver.ts SERVER_URL   (MCP_CONFORMANCE_SCENARIO and, for some scenarios, MCP_CONFORMANCE_CONTEXT set by the suite)
// The scripted model calls every tool the server offers, once; a person is stood in for: the browser follows the
// authorization redirects to miniclaw's loopback listener, and a form is accepted as it is offered (its defaults).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgentTurn } from "../../../src/index.js";
import { parseMcpConfig } from "../../../src/mcp/config.js";
import { connectMcpServers } from "../../../src/mcp/index.js";
import { createClient } from "../../../src/model/client.js";
import { startScriptedModel, type RecordedRequest, type Reply } from "../../../src/testing/index.js";

/** A client ID metadata document URL, used where the authorization server takes one (as the suite's own client does). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
const SERVER = "conformance";

type Context = { client_id?: string; client_secret?: string; private_key_pem?: string; signing_algorithm?: string };

/** The mcp.json entry a user would write for the scenario's server. */
function entryFor(url: string, scenario: string, context: Context): Record<string, unknown> {
  return { ...authOf(url, scenario, context), connectTimeoutMs: 30_000 };
}

function authOf(url: string, scenario: string, context: Context): Record<string, unknown> {
  if (scenario === "auth/client-credentials-basic") return { url, oauth: { grant: "client_credentials", clientId: context.client_id, clientSecret: context.client_secret } };
  if (scenario === "auth/client-credentials-jwt") {
    return { url, oauth: { grant: "client_credentials", clientId: context.client_id, privateKey: context.private_key_pem, algorithm: context.signing_algorithm ?? "ES256" } };
  }
  if (scenario === "auth/pre-registration") return { url, oauth: { clientId: context.client_id, clientSecret: context.client_secret } };
  return { url, oauth: { clientMetadataUrl: CLIENT_METADATA_URL } };
}

/** The "browser": follows the authorization server's redirects, which end at miniclaw's loopback listener. */
async function browse(url: URL): Promise<void> {
  const response = await fetch(url, { redirect: "follow" });
  await response.arrayBuffer();
}

/** An input for a tool from its schema: the suite's add_numbers gets numbers, every required field a plain value. */
function inputFor(schema: { properties?: Record<string, { type?: string }>; required?: string[] }): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (!(schema.required ?? []).includes(name) && property.type !== "number") continue;
    input[name] = property.type === "number" || property.type === "integer" ? 1 : property.type === "boolean" ? true : "conformance";
  }
  return input;
}

/** The model: the first request calls every MCP tool offered; the next answers. */
function reply(req: RecordedRequest): Reply {
  if ((req.body.messages?.length ?? 0) > 1) return { text: "done" };
  const tools = (req.body.tools ?? []) as Array<{ name: string; input_schema?: Record<string, unknown> }>;
  const calls = tools.filter((t) => t.name.startsWith(`mcp__${SERVER}__`)).map((t) => ({ name: t.name, input: inputFor(t.input_schema ?? {}) }));
  return calls.length > 0 ? { toolUses: calls } : { text: "no tools" };
}

async function main(): Promise<number> {
  const url = process.argv[2];
  const scenario = process.env["MCP_CONFORMANCE_SCENARIO"] ?? "";
  if (!url) throw new Error("usage: driver.ts SERVER_URL");
  const context = JSON.parse(process.env["MCP_CONFORMANCE_CONTEXT"] ?? "{}") as Context;
  const workspace = await mkdtemp(join(tmpdir(), "miniclaw-conformance-"));
  const model = await startScriptedModel([{ reply }]);
  const servers = parseMcpConfig({ mcpServers: { [SERVER]: entryFor(url, scenario, context) } }, "mcp.json", process.env, workspace);
  const hub = await connectMcpServers(servers, {
    onWarning: (line) => process.stderr.write(`warning: ${line}\n`),
    credentialsFile: join(workspace, "mcp-credentials.json"),
    signIn: { open: browse, timeoutMs: 20_000 },
    elicit: async () => ({ action: "accept", content: {} }),
    roots: [workspace],
  });
  try {
    const client = createClient({ env: { ANTHROPIC_API_KEY: "conformance", ANTHROPIC_BASE_URL: model.baseURL } });
    const agent = { id: "main", name: "Conformance", prompt: "Call the tools you are given." };
    const result = await runAgentTurn("agent:main:conformance", "Call every tool.", agent, {
      model: "claude-conformance",
      permissionMode: "bypassPermissions",
      onEvent: (e) => void (e.type === "tool_result" && process.stderr.write(`${e.name}: ${e.isError ? "error: " : ""}${e.content.slice(0, 200)}\n`)),
      runtime: { workspace, cwd: workspace, client, builtinTools: false, toolSources: [hub] },
    });
    process.stderr.write(`turn: ${result.stopReason}${result.error ? ` (${result.error})` : ""}\n`);
    return hub.status()[0]?.state === "connected" ? 0 : 1;
  } finally {
    await hub.close();
    await model.close();
    await rm(workspace, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
