// The AWS event stream (application/vnd.amazon.eventstream): binary frames with CRC32 checksums, as Bedrock streams a response.
import { crc32 } from "node:zlib";

/** One frame: string headers and a payload. Layout: total length, headers length, prelude CRC, headers, payload, message CRC (big-endian). */
export function encodeFrame(headers: Record<string, string>, payload: Uint8Array): Buffer {
  const encoded = Object.entries(headers).map(([name, value]) => {
    const [n, v] = [Buffer.from(name, "utf8"), Buffer.from(value, "utf8")];
    const head = Buffer.alloc(1 + n.length + 1 + 2);
    head.writeUInt8(n.length, 0);
    n.copy(head, 1);
    head.writeUInt8(7, 1 + n.length); // 7: a string value
    head.writeUInt16BE(v.length, 2 + n.length);
    return Buffer.concat([head, v]);
  });
  const headerBytes = Buffer.concat(encoded);
  const total = 12 + headerBytes.length + payload.length + 4;
  const prelude = Buffer.alloc(12);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, 8)), 8);
  const message = Buffer.concat([prelude, headerBytes, payload]);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(crc32(message), 0);
  return Buffer.concat([message, trailer]);
}

/** Bedrock's `chunk` event carrying one Messages API stream event (its JSON, base64 in `bytes`). */
export function chunkFrame(event: unknown): Buffer {
  const payload = JSON.stringify({ bytes: Buffer.from(JSON.stringify(event), "utf8").toString("base64") });
  return encodeFrame({ ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" }, Buffer.from(payload, "utf8"));
}

/** The frames of a stream's frames, read back (for tests of the encoder): headers and payload of each, checksums verified. */
export function decodeFrames(bytes: Buffer): Array<{ headers: Record<string, string>; payload: Buffer }> {
  const frames: Array<{ headers: Record<string, string>; payload: Buffer }> = [];
  for (let at = 0; at < bytes.length; ) {
    const total = bytes.readUInt32BE(at);
    const headersLength = bytes.readUInt32BE(at + 4);
    if (bytes.readUInt32BE(at + 8) !== crc32(bytes.subarray(at, at + 8))) throw new Error(`frame at ${at}: bad prelude checksum`);
    if (bytes.readUInt32BE(at + total - 4) !== crc32(bytes.subarray(at, at + total - 4))) throw new Error(`frame at ${at}: bad message checksum`);
    const headers: Record<string, string> = {};
    for (let h = at + 12; h < at + 12 + headersLength; ) {
      const nameLength = bytes.readUInt8(h);
      const name = bytes.toString("utf8", h + 1, h + 1 + nameLength);
      const valueLength = bytes.readUInt16BE(h + 2 + nameLength);
      headers[name] = bytes.toString("utf8", h + 4 + nameLength, h + 4 + nameLength + valueLength);
      h += 4 + nameLength + valueLength;
    }
    frames.push({ headers, payload: bytes.subarray(at + 12 + headersLength, at + total - 4) });
    at += total;
  }
  return frames;
}
