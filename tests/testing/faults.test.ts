// Faults through the real SDK client: HTTP errors and retries, cut streams, SSE errors, delays, stalls and close().
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModel, type Rule, type ScriptedModel } from "../../src/testing/index.js";
import { ask, clientFor } from "../helpers/scripted.js";

let model: ScriptedModel | undefined;
async function start(rules: Rule[], maxRetries = 0): Promise<{ server: ScriptedModel; client: Anthropic }> {
  model = await startScriptedModel(rules);
  return { server: model, client: clientFor(model, maxRetries) };
}
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const LONG_TEXT = "A reply that is long enough to be split into many streamed chunks.";
const textOf = (message: Anthropic.Message): string => message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
const failure = (promise: Promise<unknown>): Promise<unknown> => promise.then(() => null, (e: unknown) => e);

describe("HTTP faults", () => {
  const statuses = [
    [429, { retryAfterMs: 5 }, "rate_limit_error"],
    [429, { retryAfter: 0.005 }, "rate_limit_error"],
    [529, { retryAfterMs: 5 }, "overloaded_error"],
    [500, { retryAfterMs: 5 }, "api_error"],
  ] as const;

  it.each(statuses)("answers %i (%o), which the SDK retries, then succeeds", async (status, retry) => {
    const { server, client } = await start([{ times: 1, fault: { status, ...retry } }, { reply: "recovered" }], 2);
    const message = await client.messages.create(ask("hi"));
    expect(textOf(message)).toBe("recovered");
    expect(server.requests).toHaveLength(2);
  });

  it.each(statuses)("answers %i (%o) with the API's error type", async (status, retry, type) => {
    const { server, client } = await start([{ fault: { status, ...retry } }]);
    const error = await failure(client.messages.create(ask("hi")));
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ status, type });
    expect(server.requests).toHaveLength(1);
  });

  it("sets retry-after headers and the error type and message asked for", async () => {
    const { client } = await start([{ fault: { status: 429, retryAfter: 30, retryAfterMs: 30000, errorType: "rate_limit_error", message: "slow down" } }]);
    const error = (await failure(client.messages.create(ask("hi")))) as InstanceType<typeof Anthropic.RateLimitError>;
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.headers?.get("retry-after")).toBe("30");
    expect(error.headers?.get("retry-after-ms")).toBe("30000");
    expect(error.apiMessage).toBe("slow down");
  });

  it("answers 200 with a body that is not JSON when malformed", async () => {
    const { client } = await start([{ fault: { malformed: true } }]);
    await expect(client.messages.create(ask("hi"))).rejects.toThrow();
    await expect(client.messages.stream(ask("hi")).finalMessage()).rejects.toThrow();
  });

  it("answers 500 without retry when a script function throws", async () => {
    const { server, client } = await start([{ reply: () => { throw new Error("bad script"); } }], 2);
    const error = await failure(client.messages.create(ask("hi")));
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as Error).message).toContain("bad script");
    expect(server.requests).toHaveLength(1);
  });
});

describe("stream faults", () => {
  it("cuts the connection after N events, and the SDK stream rejects", async () => {
    const { client } = await start([{ fault: { dropAfterEvents: 4 }, reply: LONG_TEXT }]);
    const stream = client.messages.stream(ask("hi"));
    const deltas: string[] = [];
    stream.on("text", (d) => deltas.push(d));
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(deltas.length).toBe(1);
  });

  it("sends an SSE error event, and the SDK stream rejects with its type", async () => {
    const { client } = await start([{ fault: { sseError: "overloaded_error", afterEvents: 3, message: "Overloaded" } }]);
    const error = await failure(client.messages.stream(ask("hi")).finalMessage());
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ type: "overloaded_error", apiMessage: "Overloaded" });
    expect((error as Error).message).toMatch(/overloaded/i);
  });

  it("answers a non-streaming request with the HTTP status of an SSE error", async () => {
    const { client } = await start([{ fault: { sseError: "overloaded_error" } }]);
    await expect(client.messages.create(ask("hi"))).rejects.toMatchObject({ status: 529, type: "overloaded_error" });
  });
});

describe("delays and stalls", () => {
  it("delays one request, then hands it to the next rule", async () => {
    const { server, client } = await start([{ times: 1, fault: { delayMs: 40 } }, { reply: "late" }]);
    const started = Date.now();
    expect(textOf(await client.messages.create(ask("hi")))).toBe("late");
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    expect(textOf(await client.messages.create(ask("hi")))).toBe("late");
    expect(server.unmatched).toHaveLength(0);
  });

  it("stalls mid-stream until the client aborts", async () => {
    const { client } = await start([{ fault: { delayMs: 60_000, afterEvents: 4 }, reply: LONG_TEXT }]);
    const stream = client.messages.stream(ask("hi"));
    const deltas: string[] = [];
    stream.on("text", (d) => {
      deltas.push(d);
      stream.abort();
    });
    await expect(stream.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(deltas).toHaveLength(1);
  });

  it("paces streamed events by the reply's delayMs", async () => {
    const { client } = await start([{ reply: { text: "one two three", delayMs: 15 } }]);
    const started = Date.now();
    await client.messages.stream(ask("hi")).finalMessage();
    expect(Date.now() - started).toBeGreaterThanOrEqual(15 * 7);
  });

  it("close() ends stalled responses and open sockets at once", async () => {
    const { server, client } = await start([
      { match: "before", fault: { delayMs: 600_000 }, reply: "never" },
      { fault: { delayMs: 600_000, afterEvents: 2 }, reply: "never" },
    ]);
    const stalledBefore = failure(client.messages.create(ask("before")));
    const stream = client.messages.stream(ask("during"));
    const stalledDuring = failure(stream.finalMessage());
    await stream.withResponse();
    while (server.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await stalledBefore).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(await stalledDuring).toBeInstanceOf(Error);
  });
});
