import { describe, expect, it } from "vitest";
import { readSse } from "../../src/model/sse.js";

const encoder = new TextEncoder();

/** A body sending `chunks` one by one, as a socket may cut them. */
function bodyOf(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const queue = chunks.map((chunk) => (typeof chunk === "string" ? encoder.encode(chunk) : chunk));
  return new ReadableStream({
    pull(controller) {
      const next = queue.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

async function eventsOf(chunks: Array<string | Uint8Array>): Promise<Array<[string | null, string]>> {
  const events: Array<[string | null, string]> = [];
  await readSse(bodyOf(chunks), (event, data) => events.push([event, data]));
  return events;
}

const STREAM = [
  "event: message_start",
  'data: {"type":"message_start","text":"héllo 🌍"}',
  "",
  ": a comment",
  "event: ping",
  "data: {}",
  "",
  "id: 7",
  "retry: 100",
  "event: content_block_delta",
  "data: line one",
  "data:line two",
  "",
  "data: no name",
  "",
  "event: message_stop",
  "data: {}",
  "",
  "",
].join("\n");

const EXPECTED: Array<[string | null, string]> = [
  ["message_start", '{"type":"message_start","text":"héllo 🌍"}'],
  ["ping", "{}"],
  ["content_block_delta", "line one\nline two"],
  [null, "no name"],
  ["message_stop", "{}"],
];

describe("readSse", () => {
  it("reads events, names and multi-line data, skipping comments and other fields", async () => {
    expect(await eventsOf([STREAM])).toEqual(EXPECTED);
  });

  it("reads the same events whatever byte the body is cut at, within a character too", async () => {
    const bytes = encoder.encode(STREAM);
    for (let at = 1; at < bytes.length; at++) {
      expect(await eventsOf([bytes.slice(0, at), bytes.slice(at)])).toEqual(EXPECTED);
    }
  });

  it("reads the same events from a body sent a byte at a time, with empty chunks between the bytes", async () => {
    for (const text of [STREAM, STREAM.replaceAll("\n", "\r\n"), STREAM.replaceAll("\n", "\r")]) {
      const bytes = encoder.encode(text);
      const chunks = [...bytes].flatMap((byte) => [Uint8Array.of(byte), new Uint8Array(0)]);
      expect(await eventsOf(chunks)).toEqual(EXPECTED);
    }
  });

  it("reads lines ended by CRLF or CR, a CRLF cut between chunks included", async () => {
    const crlf = STREAM.replaceAll("\n", "\r\n");
    expect(await eventsOf([crlf])).toEqual(EXPECTED);
    const cut = crlf.indexOf("\r\n") + 1;
    expect(await eventsOf([crlf.slice(0, cut), crlf.slice(cut)])).toEqual(EXPECTED);
    expect(await eventsOf([STREAM.replaceAll("\n", "\r")])).toEqual(EXPECTED);
  });

  it("drops an event the body ends before its blank line, as the SDK does", async () => {
    expect(await eventsOf(["event: a\ndata: 1\n\nevent: b\ndata: 2"])).toEqual([["a", "1"]]);
  });

  it("stops at an error thrown by the handler and cancels the body", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("event: error\ndata: {}\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(
      readSse(body, (event) => {
        throw new Error(`stop at ${event}`);
      }),
    ).rejects.toThrow("stop at error");
    expect(cancelled).toBe(true);
  });

  it("rejects when the body fails", async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue(encoder.encode("event: a\ndata: 1\n\n"));
        else controller.error(new Error("socket hang up"));
      },
    });
    const seen: string[] = [];
    await expect(readSse(body, (_event, data) => seen.push(data))).rejects.toThrow("socket hang up");
    expect(seen).toEqual(["1"]);
  });
});
