// The local HTTP servers of testing (scripted model, replay, provider model): listening on 127.0.0.1, closing every connection, reading a request.
import { createServer, type IncomingMessage, type RequestListener } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** A server listening on 127.0.0.1; `close()` destroys open connections rather than waiting for them. */
export interface LocalServer {
  baseURL: string;
  close(): Promise<void>;
}

/** Serves `handler` on 127.0.0.1 at `port` (0: a free one); rejects when it cannot listen there. */
export async function listenLocal(handler: RequestListener, port = 0): Promise<LocalServer> {
  const sockets = new Set<Socket>();
  const server = createServer(handler);
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      }),
  };
}

/** The request's body, read whole, as UTF-8. */
export async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The request's headers, names lower-cased, repeated ones joined by ", ". */
export function headersOf(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value]])));
}
