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
  /** The bytes of the line so far; past `maxBytes`, `parts` holds only its last TAIL_BYTES. */
  private size = 0;

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
    this.size = 0;
  }

  private keep(bytes: Buffer): void {
    this.size += bytes.length;
    this.parts.push(Buffer.from(bytes));
    // Over the limit: from here on the line is counted and its tail kept, never held whole.
    if (this.size > this.maxBytes) this.parts = [Buffer.from(Buffer.concat(this.parts).subarray(-TAIL_BYTES))];
  }

  private finishLine(): LineItem {
    const [size, line] = [this.size, Buffer.concat(this.parts).toString("utf8")];
    this.clear();
    if (size > this.maxBytes) return { oversized: size, id: idIn(line) };
    try {
      return { message: deserializeMessage(line.replace(/\r$/, "")) };
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
