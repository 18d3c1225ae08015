// The loopback redirect of an OAuth sign-in: a listener on 127.0.0.1 that takes the authorization code the browser brings back.
import { createServer, type Server } from "node:http";

/** Where the browser comes back to, and the code it brings. */
export interface Loopback {
  redirectUrl: string;
  /** The code of the redirect whose `state` is `state`; rejects on an error redirect or a timeout. */
  code(state: string, timeoutMs: number): Promise<string>;
  close(): Promise<void>;
}

const PATH = "/callback";
const PAGE = (text: string): string => `<!doctype html><meta charset="utf-8"><title>miniclaw</title><p>${text}</p>`;

/** Listens on 127.0.0.1 at `port` (0: any free one; a busy given port falls back to a free one). */
export async function startLoopback(port = 0): Promise<Loopback> {
  const waiting = new Map<string, { resolve(code: string): void; reject(error: Error): void }>();
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const pending = waiting.get(url.searchParams.get("state") ?? "");
    if (url.pathname !== PATH || !pending) {
      res.writeHead(404, { "content-type": "text/html" }).end(PAGE("Not a sign-in this miniclaw is waiting for."));
      return;
    }
    const code = url.searchParams.get("code");
    const error = url.searchParams.get("error");
    res.writeHead(code ? 200 : 400, { "content-type": "text/html" }).end(PAGE(code ? "Signed in. You can close this tab." : "Sign-in failed. You can close this tab."));
    if (code) pending.resolve(code);
    else pending.reject(new Error(`the authorization server refused: ${error ?? "no code"}${url.searchParams.get("error_description") ? ` (${url.searchParams.get("error_description")})` : ""}`));
  });
  const bound = await listen(server, port).catch(() => listen(server, 0));
  return {
    redirectUrl: `http://127.0.0.1:${bound}${PATH}`,
    code: (state, timeoutMs) =>
      new Promise<string>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          waiting.delete(state);
        };
        const timer = setTimeout(() => (done(), reject(new Error(`no sign-in came back within ${Math.round(timeoutMs / 1000)} s`))), timeoutMs);
        waiting.set(state, { resolve: (code) => (done(), resolve(code)), reject: (error) => (done(), reject(error)) });
      }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });
}
