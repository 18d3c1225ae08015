// Secrets by content: a file whose first few KB hold a private key, a credential URL, a token or a password assignment is a secret whatever its name.
import { closeSync, readSync } from "node:fs";
import { openRegularSync } from "../fs/regular-file.js";
import { scanSecrets } from "./redact.js";

/** How much of a file the content check reads: credentials files are small, and a key's header comes first. */
export const CONTENT_HEAD_BYTES = 8 * 1024;

/** Why the first bytes of a file (UTF-8, at most `CONTENT_HEAD_BYTES`) make it a secret: the first credential the redaction shapes find in them, or null. */
export function contentSecretReason(head: Buffer | string): string | null {
  const label = scanSecrets(typeof head === "string" ? head : head.toString("utf8")).labels[0];
  if (label === undefined) return null;
  const what =
    label === "URL credentials" ? "a URL with credentials"
    : label === "authorization" ? "an Authorization header"
    : ["password", "secret", "token", "credential"].includes(label) ? `a ${label} assignment`
    : `${/^[AEIOU]/.test(label) ? "an" : "a"} ${label}`;
  return `its content holds what looks like ${what}`;
}

/** `contentSecretReason` of the file at `path` (a real path); null when it is missing, empty or not a regular file. Other failures throw. */
export function fileContentSecretReason(path: string): string | null {
  const head = readFileHead(path, CONTENT_HEAD_BYTES);
  return head === null || head.length === 0 ? null : contentSecretReason(head);
}

/** The first `maxBytes` bytes of the regular file at `path`, opened without blocking; null when missing or not a regular file. Other failures (EACCES) throw. */
export function readFileHead(path: string, maxBytes: number): Buffer | null {
  let opened: { fd: number; size: number };
  try {
    opened = openRegularSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // openRegularSync refuses a non-regular file with an error of its own, which has no code.
    if (code === undefined || code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return null;
    throw error;
  }
  try {
    // A size of 0 may not be the truth (a file being written): read what is there.
    const buffer = Buffer.allocUnsafe(opened.size === 0 ? maxBytes : Math.min(maxBytes, opened.size));
    return buffer.subarray(0, readSync(opened.fd, buffer, 0, buffer.length, 0));
  } finally {
    closeSync(opened.fd);
  }
}
