// Newline-delimited JSON-RPC from a stdio server, where one message too large to hold ends only the request it answers.
import { deserializeMessage, type JSONRPCMessage } from "@modelcontextprotocol/client";

/** What one line of the stream gave: a message, a line that was not JSON-RPC, or a line over the limit (its id when one was found). */
export type LineItem = { message: JSONRPCMessage } | { error: Error } | { oversized: number; id: string | number | undefined };

/** How much of the end of an oversized line is kept to find its `"id"`: the SDK's servers write it last. */
const TAIL_BYTES = 512;
const NEWLINE = 0x0a;

/** Splits chunks into JSON-RPC lines. A line over `maxBytes` is dropped but for its tail, which names the request it answered. */
export class LineReader {
  private parts: Buffer[] = [];
  private held = 0;
  private dropped = 0;
  private tail = Buffer.alloc(0);

  constructor(private readonly maxBytes: number) {}

  /** The items the chunk completes, in order. */
  push(chunk: Buffer): LineItem[] {
    const items: LineItem[] = [];
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
      this.keep(chunk.subarray(start, end));
      items.push(this.finishLine());
      start = end + 1;
    }
    if (start < chunk.length) this.keep(chunk.subarray(start));
    return items;
  }

  /** Forgets a partial line (the server is gone). */
  clear(): void {
    this.parts = [];
    this.held = 0;
    this.dropped = 0;
    this.tail = Buffer.alloc(0);
  }

  private keep(bytes: Buffer): void {
    if (this.dropped === 0 && this.held + bytes.length <= this.maxBytes) {
      this.parts.push(Buffer.from(bytes));
      this.held += bytes.length;
      return;
    }
    // Over the limit: from here on the line is counted and its tail kept, never held whole.
    const all = Buffer.concat([this.tail, ...this.parts, bytes]);
    this.dropped += this.held + bytes.length;
    this.parts = [];
    this.held = 0;
    this.tail = Buffer.from(all.subarray(Math.max(0, all.length - TAIL_BYTES)));
  }

  private finishLine(): LineItem {
    if (this.dropped > 0) {
      const item = { oversized: this.dropped, id: idIn(this.tail.toString("utf8")) };
      this.clear();
      return item;
    }
    const line = Buffer.concat(this.parts).toString("utf8").replace(/\r$/, "");
    this.clear();
    try {
      return { message: deserializeMessage(line) };
    } catch (error) {
      return { error: error instanceof Error ? error : new Error(String(error)) };
    }
  }
}

/** The last `"id": N` or `"id": "x"` of a JSON text's end, if any. */
function idIn(text: string): string | number | undefined {
  const matches = [...text.matchAll(/"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/g)];
  const last = matches.at(-1)?.[1];
  if (last === undefined) return undefined;
  return last.startsWith('"') ? (JSON.parse(last) as string) : Number(last);
}
