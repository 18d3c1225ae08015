// One streamed request over the wire, against a server that writes its own events: what counts as a stream gone silent.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../src/model/client.js";
import { streamMessage } from "../../src/model/stream.js";
import { systemClock } from "../../src/deps.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

const MESSAGE_START = {
  type: "message_start",
  message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 0 } },
};

/** A server that starts every stream, then sends `then` every 50 ms until the client goes. */
async function serve(then: string): Promise<string> {
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`event: message_start\ndata: ${JSON.stringify(MESSAGE_START)}\n\n`);
    const timer = setInterval(() => res.write(then), 50);
    res.on("close", () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** One streamed request with a 300 ms idle limit; a stream the limit fails to cut ends as aborted after 3 s instead. */
async function streamFrom(baseURL: string): Promise<{ outcome: string; error?: string }> {
  const client = createClient({ env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: baseURL }, maxRetries: 0 });
  const result = await streamMessage(client, { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }, {
    signal: AbortSignal.timeout(3_000),
    emit: () => {},
    clock: systemClock,
    maxStreamRetries: 0,
    idleTimeoutMs: 300,
  });
  return result.outcome === "failed" ? { outcome: "failed", error: (result.error as Error).message } : { outcome: result.outcome };
}

describe("a started stream", () => {
  it("that sends only pings is as silent as one that sends nothing, and fails after the idle time", async () => {
    const result = await streamFrom(await serve("event: ping\ndata: {\"type\": \"ping\"}\n\n"));
    expect(result).toEqual({ outcome: "failed", error: "the response stream sent nothing for 0 s" });
  });

  it("that sends only comments and unnamed events fails after the idle time too", async () => {
    const result = await streamFrom(await serve(": keep-alive\n\ndata: {}\n\n"));
    expect(result).toEqual({ outcome: "failed", error: "the response stream sent nothing for 0 s" });
  });
});
