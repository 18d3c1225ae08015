// Network helpers of the tests: a local port nothing listens on.
import { createServer, type AddressInfo } from "node:net";

/** A port on 127.0.0.1 that nothing listens on: one the system just gave out and took back. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
