// The OAuth client of one MCP server over the credentials file: what the client SDK's own auth flow asks of a provider.
import { randomBytes } from "node:crypto";
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from "@modelcontextprotocol/client";
import type { McpOAuthConfig } from "./config.js";
import type { CredentialStore } from "./credential-store.js";

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
