// An MCP server behind OAuth for the tests: protected-resource and authorization-server metadata, dynamic registration, an authorize page that approves at once, a token endpoint.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash } from "node:crypto";
import { startHttpMcpServer, type HttpMcpServer } from "./mcp.js";

/** The token the server issues; a test checks it is never printed. */
export const ISSUED_TOKEN = "tok-7f3a9c-secret";

/** A running protected server: its MCP url, and what its authorization endpoint was asked. */
export interface OAuthMcpServer {
  url: string;
  authorizations: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * Starts an MCP server (the HTTP fixture tools) that answers 401 with a `resource_metadata` challenge until a request
 * carries the token it issued; its authorization server registers any client, approves at once (a redirect back with a
 * code), and trades the code for the token when the PKCE verifier matches.
 */
export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const inner: HttpMcpServer = await startHttpMcpServer("docs");
  const authorizations: URLSearchParams[] = [];
  const challenges = new Map<string, string>();
  const http = createServer((req, res) => {
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const url = new URL(req.url ?? "/", base);
    const json = (status: number, body: unknown): void => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(200, { issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, registration_endpoint: `${base}/register`, response_types_supported: ["code"], grant_types_supported: ["authorization_code", "refresh_token"], code_challenge_methods_supported: ["S256"], token_endpoint_auth_methods_supported: ["none"] });
    }
    if (url.pathname === "/authorize") {
      authorizations.push(url.searchParams);
      const code = `code-${authorizations.length}`;
      challenges.set(code, url.searchParams.get("code_challenge") ?? "");
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      return void res.writeHead(302, { location: back.href }).end();
    }
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      if (url.pathname === "/register") return json(201, { ...JSON.parse(body), client_id: "client-1" });
      if (url.pathname === "/token") {
        const form = new URLSearchParams(body);
        const verifier = createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url");
        if (challenges.get(form.get("code") ?? "") !== verifier) return json(400, { error: "invalid_grant" });
        return json(200, { access_token: ISSUED_TOKEN, token_type: "Bearer", expires_in: 3600 });
      }
      if (req.headers.authorization !== `Bearer ${ISSUED_TOKEN}`) {
        return void res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"` }).end();
      }
      // The inner server may be closed under a request still in flight (a test's teardown): that request's socket is cut.
      forward(inner.url, req.method ?? "POST", req.headers, body).then(
        ({ status, headers, text }) => res.writeHead(status, headers).end(text),
        () => res.destroy(),
      );
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    authorizations,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await inner.close();
    },
  };
}

/** The request passed on to the unprotected fixture server, its answer read whole. */
async function forward(url: string, method: string, headers: NodeJS.Dict<string | string[]>, body: string) {
  const pass = Object.fromEntries(Object.entries(headers).flatMap(([k, v]) => (typeof v === "string" && !["host", "authorization", "content-length", "connection"].includes(k) ? [[k, v]] : [])));
  const response = await fetch(url, { method, headers: pass, ...(method !== "GET" && { body }) });
  const text = await response.text();
  const out = Object.fromEntries([...response.headers].filter(([k]) => !["content-length", "transfer-encoding", "connection"].includes(k)));
  return { status: response.status, headers: out, text };
}
