// What the scripted model makes up and later recognises: ids like the API's, opaque data, and the signatures of thinking.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Fixed rather than per server: the real API's signatures verify on any later request, so a session recorded against one scripted model must verify on another. */
const SIGNING_KEY = "miniclaw scripted model: thinking signatures";
const MAC_BYTES = 32;
const REDACTED_PAYLOAD_BYTES = 48;

/** An id like the API's (`msg_`, `toolu_`, `srvtoolu_`, `req_`): the prefix and 24 random base62 characters. */
export function randomId(prefix: string): string {
  return prefix + Array.from(randomBytes(24), (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join("");
}

/** Base64 of `bytes` random bytes: the encrypted content and indexes a client only sends back. */
export function opaque(bytes: number): string {
  return randomBytes(bytes).toString("base64");
}

function mac(kind: string, payload: Buffer | string): Buffer {
  return createHmac("sha256", SIGNING_KEY).update(`${kind}\u0000`).update(payload).digest();
}

/** The signature of a thinking block whose text is `thinking` (base64, the same for the same text). */
export function signThinking(thinking: string): string {
  return mac("thinking", thinking).toString("base64");
}

/** True when `signature` is the one `signThinking` gives for `thinking`. */
export function verifyThinking(thinking: unknown, signature: unknown): boolean {
  return typeof thinking === "string" && typeof signature === "string" && signature === signThinking(thinking);
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
  return timingSafeEqual(bytes.subarray(-MAC_BYTES), mac("redacted_thinking", bytes.subarray(0, -MAC_BYTES)));
}
