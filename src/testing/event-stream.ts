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
