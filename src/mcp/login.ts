// `miniclaw mcp login SERVER`: a fresh OAuth sign-in to one http server of mcp.json, its tokens kept in the credentials file.
import { join } from "node:path";
import { ConfigError } from "../errors.js";
import type { Env } from "../model/client.js";
import { MCP_CONFIG_FILE, readMcpConfig } from "./config.js";
import { CredentialStore, MCP_CREDENTIALS_FILE } from "./credential-store.js";
import type { SignIn } from "./host.js";
import { hubFor } from "./hub.js";

/** How a sign-in ended: signed in (tokens kept), or the server asked for none. */
export type SignInOutcome = { signedIn: true; tools: number } | { signedIn: false; tools: number };

/**
 * Forgets `server`'s tokens and signs in again through `signIn`, keeping the new tokens in mcp-credentials.json. Throws a
 * ConfigError for an unknown, stdio or client-credentials server; one line naming the server and cause when sign-in fails.
 */
export async function signInToServer(workspace: string, server: string, env: Env, signIn: SignIn): Promise<SignInOutcome> {
  const file = join(workspace, MCP_CONFIG_FILE);
  const servers = (await readMcpConfig(workspace, env)) ?? {};
  const config = servers[server];
  if (config === undefined) throw new ConfigError(`${file} has no server "${server}"${Object.keys(servers).length > 0 ? `; it has ${Object.keys(servers).join(", ")}` : ""}`);
  if (!("url" in config)) throw new ConfigError(`MCP server "${server}" is started as a command: only http servers sign in`);
  if (config.oauth?.grant === "client_credentials") throw new ConfigError(`MCP server "${server}" signs in with the client credentials of ${file}: nothing to do`);
  if (config.disabledReason !== undefined) throw new ConfigError(`MCP server "${server}": ${config.disabledReason}`);
  const credentialsFile = join(workspace, MCP_CREDENTIALS_FILE);
  const store = new CredentialStore(credentialsFile);
  await store.update(server, config.url, ({ tokens: _dropped, ...rest }) => rest);
  const hub = hubFor({ [server]: { ...config, enabled: true } }, env, undefined, { signIn, credentialsFile, reportFailures: false });
  try {
    await hub.connect();
    const [status] = hub.status();
    if (status?.state !== "connected") throw new Error(`MCP server "${server}" ${status?.error ?? "did not connect"}`);
    const signedIn = (await store.read(server, config.url))?.tokens !== undefined;
    return { signedIn, tools: status.tools.length };
  } finally {
    await hub.close();
  }
}
