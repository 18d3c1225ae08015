// How an http server's client authenticates: client credentials from mcp.json, or OAuth over the credentials file, interactive when a person can sign in.
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import type { McpHttpConfig } from "./config.js";
import { CredentialStore, StoredOAuthProvider } from "./credential-store.js";
import type { McpHost } from "./host.js";
import { startLoopback, type Loopback } from "./loopback.js";

/** How long a sign-in waits for the browser to come back, unless the host says. */
export const DEFAULT_SIGN_IN_TIMEOUT_MS = 5 * 60_000;

type Sdk = typeof import("@modelcontextprotocol/client");

/**
 * One http connection's auth: the transport's provider (none when never signed in and nobody can sign in now, so a 401
 * names `miniclaw mcp login`), and the code the loopback brought back. `close()` stops the loopback listener.
 */
export class AuthSession {
  private pendingCode: Promise<string> | undefined;

  private constructor(
    readonly provider: OAuthClientProvider | undefined,
    private readonly loopback: Loopback | undefined,
  ) {}

  static async open(server: string, config: McpHttpConfig, host: McpHost, sdk: Sdk): Promise<AuthSession> {
    const oauth = config.oauth;
    if (oauth?.grant === "client_credentials") {
      const { clientId = "", clientSecret = "", privateKey, scope } = oauth;
      const provider = privateKey !== undefined
        ? new sdk.PrivateKeyJwtProvider({ clientId, privateKey, algorithm: oauth.algorithm ?? "ES256" })
        : new sdk.ClientCredentialsProvider({ clientId, clientSecret, ...(scope !== undefined && { scope }) });
      return new AuthSession(provider, undefined);
    }
    if (host.credentialsFile === undefined) return new AuthSession(undefined, undefined);
    const store = new CredentialStore(host.credentialsFile);
    const stored = await store.read(server, config.url);
    if (!host.signIn) {
      if (stored?.tokens === undefined && oauth === undefined) return new AuthSession(undefined, undefined);
      return new AuthSession(new StoredOAuthProvider(server, config.url, store, { oauth, redirectUrl: stored?.redirectUrl }), undefined);
    }
    const loopback = await startLoopback(oauth?.callbackPort ?? portOf(stored?.redirectUrl));
    // A client registered for another redirect cannot use this one: it registers again.
    if (stored?.client && stored.redirectUrl !== loopback.redirectUrl && oauth?.clientId === undefined) {
      await store.update(server, config.url, ({ client: _dropped, ...rest }) => rest);
    }
    const signIn = host.signIn;
    const session: AuthSession = new AuthSession(
      new StoredOAuthProvider(server, config.url, store, {
        oauth,
        redirectUrl: loopback.redirectUrl,
        onAuthorize: async (url, state) => {
          session.pendingCode = loopback.code(state, signIn.timeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS);
          // Marked handled: it is awaited by the connection, or dropped with the session.
          session.pendingCode.catch(() => undefined);
          await signIn.open(url, server);
        },
      }),
      loopback,
    );
    return session;
  }

  /** Whether a person was sent to sign in and the code has not been taken yet. */
  signingIn(): boolean {
    return this.pendingCode !== undefined;
  }

  /** The code of the authorization the provider started, once; undefined when none was started. */
  takeCode(): Promise<string> | undefined {
    const code = this.pendingCode;
    this.pendingCode = undefined;
    return code;
  }

  async close(): Promise<void> {
    await this.loopback?.close();
  }
}

function portOf(url: string | undefined): number | undefined {
  return url !== undefined && URL.canParse(url) ? Number(new URL(url).port) || undefined : undefined;
}
