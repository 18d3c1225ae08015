// The OAuth state of a workspace's MCP servers (client registration, tokens, discovery), in one file only its owner can read,
// and the OAuth client of one server over it: what the client SDK's own auth flow asks of a provider.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open } from "node:fs/promises";
import { dirname } from "node:path";
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/client";
import type { StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { readRegularText } from "../fs/regular-file.js";
import type { McpOAuthConfig } from "./config.js";

/** The file, in the workspace; its name marks it as a secret for the gate, so the model cannot read it unasked. */
export const MCP_CREDENTIALS_FILE = "mcp-credentials.json";

/** What is kept for one server, valid only for the url it was obtained for. */
export interface ServerCredentials {
  url: string;
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  discovery?: OAuthDiscoveryState;
  /** The loopback redirect the client was registered with: a later sign-in listens there again. */
  redirectUrl?: string;
}

type FileShape = { servers: Record<string, ServerCredentials> };

/** The credentials file: mode 0600, replaced atomically, one change at a time; unreadable JSON counts as empty (signing in again mends it). */
export class CredentialStore {
  private queue: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  /** The server's credentials, when they were obtained for this url. */
  async read(server: string, url: string): Promise<ServerCredentials | undefined> {
    const entry = (await this.load()).servers[server];
    return entry?.url === url ? entry : undefined;
  }

  /** Changes the server's entry (a fresh one when it was for another url); `undefined` from `change` removes it. */
  update(server: string, url: string, change: (entry: ServerCredentials) => ServerCredentials | undefined): Promise<void> {
    const run = this.queue.then(async () => {
      const data = await this.load();
      const current = data.servers[server];
      const next = change(current?.url === url ? current : { url });
      const servers = { ...data.servers };
      if (next === undefined) delete servers[server];
      else servers[server] = { ...next, url };
      await this.write({ servers });
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async load(): Promise<FileShape> {
    const text = await readRegularText(this.file).catch(() => undefined);
    if (text === undefined) return { servers: {} };
    try {
      const data = JSON.parse(text) as Partial<FileShape>;
      return { servers: typeof data.servers === "object" && data.servers !== null ? data.servers : {} };
    } catch {
      return { servers: {} };
    }
  }

  private async write(data: FileShape): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    // Created (or narrowed) to 0600 before the content arrives: the atomic write keeps the mode it finds.
    const handle = await open(this.file, "a", 0o600);
    await handle.close();
    await chmod(this.file, 0o600);
    await writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`);
  }
}

/** Thrown where a person would have to sign in and nobody can: the server is then named with the command to run. */
export class SignInNeeded extends Error {
  constructor(readonly server: string) {
    super(`needs sign-in: run "miniclaw mcp login ${server}"`);
  }
}

/** What a provider does with the authorization URL: open it for a person and note the state it carries; absent, sign-in is needed. */
export type OnAuthorize = (url: URL, state: string) => void | Promise<void>;

/**
 * The authorization-code client of one server (PKCE, scopes and step-up are the SDK's): pre-registered, a metadata
 * document, or registered dynamically and kept in the store with the tokens, for the server's url only.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private lastState: string | undefined;
  /** A client ID metadata document: used as the client id where the authorization server takes one. */
  readonly clientMetadataUrl?: string;

  constructor(
    private readonly server: string,
    private readonly url: string,
    private readonly store: CredentialStore,
    private readonly options: { oauth?: McpOAuthConfig | undefined; redirectUrl?: string | undefined; onAuthorize?: OnAuthorize | undefined },
  ) {
    if (options.oauth?.clientMetadataUrl !== undefined) this.clientMetadataUrl = options.oauth.clientMetadataUrl;
  }

  get redirectUrl(): string | undefined {
    return this.options.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.options.oauth?.clientSecret !== undefined;
    return {
      client_name: "miniclaw",
      redirect_uris: this.options.redirectUrl ? [this.options.redirectUrl] : [],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: secret ? "client_secret_basic" : "none",
      ...(this.options.oauth?.scope !== undefined && { scope: this.options.oauth.scope }),
    };
  }

  state(): string {
    this.lastState = randomBytes(16).toString("base64url");
    return this.lastState;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const { clientId, clientSecret } = this.options.oauth ?? {};
    if (clientId !== undefined) return { client_id: clientId, ...(clientSecret !== undefined && { client_secret: clientSecret }) };
    return (await this.store.read(this.server, this.url))?.client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    await this.store.update(this.server, this.url, (entry) => ({ ...entry, client, ...(this.options.redirectUrl && { redirectUrl: this.options.redirectUrl }) }));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.store.read(this.server, this.url))?.tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    await this.store.update(this.server, this.url, (entry) => ({ ...entry, tokens }));
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    if (!this.options.onAuthorize) throw new SignInNeeded(this.server);
    await this.options.onAuthorize(url, url.searchParams.get("state") ?? this.lastState ?? "");
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new SignInNeeded(this.server);
    return this.verifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.store.update(this.server, this.url, (entry) => ({ ...entry, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.store.read(this.server, this.url))?.discovery;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") return void (this.verifier = undefined);
    await this.store.update(this.server, this.url, (entry) => {
      if (scope === "all") return undefined;
      const { [scope === "client" ? "client" : scope === "tokens" ? "tokens" : "discovery"]: _dropped, ...rest } = entry;
      return rest;
    });
  }
}
