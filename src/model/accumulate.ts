// Builds the final message from raw stream events: a small accumulator in place of the SDK's MessageStream.
import type Anthropic from "@anthropic-ai/sdk";
import type { ApiMessage } from "../types.js";

type Block = ApiMessage["content"][number];

/** What an accumulator reports as the stream goes: text and thinking deltas, and each block once it is complete. */
export type StreamSink = { text(text: string): void; thinking(text: string): void; block(block: Block): void };

/** Folds raw SSE events into a message, parsing tool input JSON once when its block stops (the SDK re-parses it on every delta). */
export class MessageAccumulator {
  private message: ApiMessage | undefined;
  private readonly json = new Map<number, string>();
  private stopped = false;

  constructor(private readonly sink: StreamSink) {}

  add(event: Anthropic.RawMessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.message = { ...event.message, content: [] };
        return;
      case "content_block_start":
        this.current().content[event.index] = { ...event.content_block } as Block;
        if (event.content_block.type === "tool_use" || event.content_block.type === "server_tool_use") this.json.set(event.index, "");
        return;
      case "content_block_delta":
        return this.delta(event.index, event.delta);
      case "content_block_stop":
        return this.finishBlock(event.index);
      case "message_delta": {
        const message = this.current();
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        for (const [key, value] of Object.entries(event.usage)) if (value !== null && value !== undefined) (message.usage as unknown as Record<string, unknown>)[key] = value;
        return;
      }
      case "message_stop":
        this.stopped = true;
        return;
    }
  }

  /** The complete message; throws when the stream ended before `message_stop`. */
  result(): ApiMessage {
    if (!this.message || !this.stopped) throw new Error("the response stream ended before the message was complete");
    return this.message;
  }

  private current(): ApiMessage {
    if (!this.message) throw new Error("the response stream sent a block before message_start");
    return this.message;
  }

  private delta(index: number, delta: Anthropic.RawContentBlockDelta): void {
    const block = this.current().content[index] as Record<string, unknown> | undefined;
    if (!block) throw new Error(`the response stream sent a delta for unknown block ${index}`);
    if (delta.type === "text_delta") {
      block["text"] = `${(block["text"] as string | undefined) ?? ""}${delta.text}`;
      if (delta.text) this.sink.text(delta.text);
    } else if (delta.type === "input_json_delta") {
      this.json.set(index, (this.json.get(index) ?? "") + delta.partial_json);
    } else if (delta.type === "thinking_delta") {
      block["thinking"] = `${(block["thinking"] as string | undefined) ?? ""}${delta.thinking}`;
      if (delta.thinking) this.sink.thinking(delta.thinking);
    } else if (delta.type === "signature_delta") {
      block["signature"] = delta.signature;
    } else if (delta.type === "citations_delta") {
      block["citations"] = [...((block["citations"] as unknown[] | null | undefined) ?? []), delta.citation];
    }
  }

  private finishBlock(index: number): void {
    const block = this.current().content[index];
    if (!block) throw new Error(`the response stream ended unknown block ${index}`);
    const raw = this.json.get(index);
    if (raw !== undefined) {
      try {
        (block as { input: unknown }).input = raw.trim() ? JSON.parse(raw) : {};
      } catch {
        throw new Error(`the response stream sent tool input that is not valid JSON (${raw.length} characters)`);
      }
    }
    this.sink.block(block);
  }
}
