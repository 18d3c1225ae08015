// Ids like the API's: msg_, toolu_, srvtoolu_, req_ followed by random base62.
import { randomBytes } from "node:crypto";

const ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** An id like the API's: the prefix and 24 random base62 characters. */
export function randomId(prefix: string): string {
  return prefix + Array.from(randomBytes(24), (byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join("");
}
