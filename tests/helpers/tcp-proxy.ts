// A TCP proxy between miniclaw and a server, for network faults: forward, a silent partition, resets, added latency, another target.
import { connect, createServer, type AddressInfo, type Socket } from "node:net";

/** The proxy's controls. Its URL helper swaps the port of a PostgreSQL URL for the proxy's. */
export interface TcpProxy {
  readonly port: number;
  /** `url` with its port replaced by the proxy's. */
  via(url: string): string;
  /**
   * Stops forwarding without closing anything, as a dropped network does: open connections hold their data (paused, as TCP
   * holds unacknowledged data) and new ones are accepted but get no answer, until `heal`.
   */
  partition(): void;
  /** Forwards again: what was held flows on, as TCP's retransmits would deliver it. */
  heal(): void;
  /** Resets every open connection (RST on both sides). */
  reset(): void;
  /** Delays each chunk this long in each direction (a round trip gains twice it); 0 for none. */
  setLatency(msEachWay: number): void;
  /** Where new connections go from now on (failover). */
  retarget(port: number): void;
  /** Connections open right now. */
  readonly open: number;
  close(): Promise<void>;
}

type Pair = { client: Socket; server?: Socket };

/** Starts a proxy on 127.0.0.1 to `targetPort` there. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  let target = targetPort;
  let partitioned = false;
  let latency = 0;
  const pairs = new Set<Pair>();
  const waiting: Pair[] = [];

  const pipe = (from: Socket, to: Socket): void => {
    let last = 0;
    from.on("data", (chunk) => {
      if (latency === 0) return void to.write(chunk);
      // In order, each chunk no sooner than `latency` after it came.
      const at = Math.max(Date.now() + latency, last);
      last = at;
      setTimeout(() => to.writable && to.write(chunk), at - Date.now());
    });
  };
  const link = (pair: Pair): void => {
    const server = connect(target, "127.0.0.1");
    pair.server = server;
    pipe(pair.client, server);
    pipe(server, pair.client);
    const end = (): void => {
      pair.client.destroy();
      server.destroy();
      pairs.delete(pair);
    };
    server.on("close", end).on("error", end);
    pair.client.on("close", end).on("error", end);
  };
  const server = createServer((client) => {
    const pair: Pair = { client };
    pairs.add(pair);
    client.on("error", () => pairs.delete(pair));
    if (partitioned) {
      client.pause();
      waiting.push(pair);
    } else link(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const sockets = (): Socket[] => [...pairs].flatMap((p) => (p.server ? [p.client, p.server] : [p.client]));

  return {
    port,
    via: (url) => url.replace(/@([^:/]+):\d+\//, `@$1:${port}/`),
    partition() {
      partitioned = true;
      for (const socket of sockets()) socket.pause();
    },
    heal() {
      partitioned = false;
      for (const socket of sockets()) if (!socket.destroyed) socket.resume();
      for (const pair of waiting.splice(0)) if (!pair.client.destroyed) (pair.client.resume(), link(pair));
    },
    reset() {
      for (const socket of sockets()) socket.resetAndDestroy();
      pairs.clear();
    },
    setLatency(ms) {
      latency = ms;
    },
    retarget(next) {
      target = next;
    },
    get open() {
      return pairs.size;
    },
    async close() {
      for (const socket of sockets()) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
