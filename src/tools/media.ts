// Images and PDFs as content blocks: known by their first bytes, within the API's size limits.
import type { FileHandle } from "node:fs/promises";
import type { ImageBlockParam, DocumentBlockParam } from "@anthropic-ai/sdk/resources/messages";

/** Largest image sent, in bytes: its base64 stays within the API's 5 MB per image. */
export const MAX_IMAGE_BYTES = 3_750_000;
/** Largest PDF sent, in bytes: its base64 stays well within the API's 32 MB per request. */
export const MAX_PDF_BYTES = 20_000_000;

const KINDS: Array<[type: "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "application/pdf", test: (b: Buffer) => boolean]> = [
  ["image/png", (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))],
  ["image/jpeg", (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff],
  ["image/gif", (b) => b.subarray(0, 4).toString("latin1") === "GIF8"],
  ["image/webp", (b) => b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP"],
  ["application/pdf", (b) => b.subarray(0, 5).toString("latin1") === "%PDF-"],
];

/** The media type the first bytes of a file show (PNG, JPEG, GIF, WebP, PDF), else undefined. */
export function mediaTypeOf(head: Buffer): (typeof KINDS)[number][0] | undefined {
  return KINDS.find(([, test]) => test(head))?.[0];
}

type MediaType = NonNullable<ReturnType<typeof mediaTypeOf>>;

/** Why a file of `size` bytes cannot be sent (one line naming the file and the limit), or undefined when it can. */
function mediaTooLarge(size: number, type: MediaType, shown: string): string | undefined {
  const [max, kind] = type === "application/pdf" ? [MAX_PDF_BYTES, "a PDF"] : [MAX_IMAGE_BYTES, "an image"];
  if (size <= max) return undefined;
  return `${shown} is ${(size / 1e6).toFixed(1)} MB, over the ${max / 1e6} MB ${kind} may have here; make it smaller (resize, compress, or split it)`;
}

/** An open image or PDF of `size` bytes as its block (cut to the bytes read, should it have shrunk), or why it cannot be sent. */
export async function readMedia(handle: FileHandle, size: number, type: MediaType, shown: string): Promise<{ block: ImageBlockParam | DocumentBlockParam } | { problem: string }> {
  const problem = mediaTooLarge(size, type, shown);
  if (problem) return { problem };
  const { buffer, bytesRead } = await handle.read(Buffer.alloc(size), 0, size, 0);
  return { block: mediaBlock(buffer.subarray(0, bytesRead), type, shown) };
}

/** The bytes as an image or document block (a PDF titled `shown`). */
function mediaBlock(bytes: Buffer, type: MediaType, shown: string): ImageBlockParam | DocumentBlockParam {
  const data = bytes.toString("base64");
  if (type === "application/pdf") return { type: "document", source: { type: "base64", media_type: type, data }, title: shown };
  return { type: "image", source: { type: "base64", media_type: type, data } };
}
