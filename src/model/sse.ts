// Server-sent events read from a response body and handed on one by one as each completes, in the chunk that
// completed it: what the SDK's Stream does, without an async generator step per event and per line.

/** One event: its `event:` name (null without one) and its `data:` lines joined by newlines. */
export type SseHandler = (event: string | null, data: string) => void;

/**
 * Reads `body` to its end, calling `onEvent` for every event (comments, `id:` and `retry:` skipped); lines end in LF,
 * CRLF or CR, split anywhere. An error thrown by `onEvent`, or by the body, cancels the body and rejects.
 */
export async function readSse(body: ReadableStream<Uint8Array>, onEvent: SseHandler): Promise<void> {
  const reader = body.getReader();
  const parser = new SseParser(onEvent);
  const decoder = new TextDecoder();
  let done = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      parser.push(decoder.decode(chunk.value, { stream: true }));
    }
    parser.push(decoder.decode());
    parser.end();
    done = true;
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** The line and event state of one stream (the WHATWG event-stream format, as the SDK's decoder reads it). */
class SseParser {
  private rest = "";
  /** A CR ended the last chunk: an LF opening the next one belongs to it. */
  private afterCr = false;
  private event: string | null = null;
  private data: string[] = [];

  constructor(private readonly onEvent: SseHandler) {}

  push(text: string): void {
    if (text === "") return; // an empty chunk between a CR and its LF changes nothing
    let from = 0;
    if (this.afterCr && text.startsWith("\n")) from = 1;
    this.afterCr = false;
    // The next LF and CR at or after `from`, each searched for again only once passed: one scan of the chunk.
    let lf = text.indexOf("\n", from);
    let cr = text.indexOf("\r", from);
    for (;;) {
      if (lf !== -1 && lf < from) lf = text.indexOf("\n", from);
      if (cr !== -1 && cr < from) cr = text.indexOf("\r", from);
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === -1) break;
      const line = this.rest + text.slice(from, end);
      this.rest = "";
      if (end === cr && end + 1 === text.length) this.afterCr = true;
      from = end === cr && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
      this.line(line);
    }
    this.rest += text.slice(from);
  }

  /** The body ended: a last line without its newline is read, an event without its blank line is dropped (as the SDK does). */
  end(): void {
    if (this.rest !== "") this.line(this.rest);
    this.rest = "";
  }

  private line(line: string): void {
    if (line === "") {
      if (this.event === null && this.data.length === 0) return;
      const event = this.event;
      const data = this.data.join("\n");
      this.event = null;
      this.data = [];
      this.onEvent(event, data);
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
  }
}
