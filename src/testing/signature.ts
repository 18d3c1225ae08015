// Signatures of thinking: the scripted model signs each thinking block it sends and verifies those sent back.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * A fixed key rather than one per server: the real API's signatures verify on any
 * later request, so a session recorded against one scripted model must verify on another.
 */
const SIGNING_KEY = "miniclaw scripted model: thinking signatures";

const MAC_BYTES = 32;
const REDACTED_PAYLOAD_BYTES = 48;

function mac(kind: string, payload: Buffer | string): Buffer {
  return createHmac("sha256", SIGNING_KEY).update(`${kind}\u0000`).update(payload).digest();
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The signature of a thinking block whose text is `thinking` (base64, the same for the same text). */
export function signThinking(thinking: string): string {
  return mac("thinking", thinking).toString("base64");
}

/** True when `signature` is the one `signThinking` gives for `thinking`. */
export function verifyThinking(thinking: unknown, signature: unknown): boolean {
  if (typeof thinking !== "string" || typeof signature !== "string") return false;
  return signature === signThinking(thinking);
}

/** Fresh `data` for a redacted_thinking block: base64 of a random payload followed by its MAC. */
export function redactedThinkingData(): string {
  const payload = randomBytes(REDACTED_PAYLOAD_BYTES);
  return Buffer.concat([payload, mac("redacted_thinking", payload)]).toString("base64");
}

/** True when `data` came from `redactedThinkingData` unchanged. */
export function verifyRedactedThinking(data: unknown): boolean {
  if (typeof data !== "string") return false;
  const bytes = Buffer.from(data, "base64");
  if (bytes.length <= MAC_BYTES || bytes.toString("base64") !== data) return false;
  const payload = bytes.subarray(0, bytes.length - MAC_BYTES);
  return sameBytes(bytes.subarray(bytes.length - MAC_BYTES), mac("redacted_thinking", payload));
}
