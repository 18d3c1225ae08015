// Secrets by content: a file whose first few KB hold a private key, a credential URL, a token or a password assignment is a secret whatever its name.
import { closeSync, readSync } from "node:fs";
import { openRegularSync } from "../fs/regular-file.js";
import { scanSecrets } from "./redact.js";

/** How much of a file the content check reads: credentials files are small, and a key's header comes first. */
export const CONTENT_HEAD_BYTES = 8 * 1024;

/**
 * Why the first bytes of a file make it a secret: the label of the first credential the
 * redaction shapes find in them (`a private key`, `a GitHub token`, `URL credentials`, `a
 * password assignment`), or null. `head` is decoded as UTF-8 (a binary file's bytes rarely
 * spell a token's prefix and length); pass no more than `CONTENT_HEAD_BYTES` for a bounded cost.
 */
export function contentSecretReason(head: Buffer | string): string | null {
  const text = typeof head === "string" ? head : head.toString("utf8");
  const label = scanSecrets(text).labels[0];
  return label === undefined ? null : `its content holds what looks like ${describe(label)}`;
}

function describe(label: string): string {
  if (label === "URL credentials") return "a URL with credentials";
  if (label === "authorization") return "an Authorization header";
  if (["password", "secret", "token", "credential"].includes(label)) return `a ${label} assignment`;
  return /^[AEIOU]/.test(label) ? `an ${label}` : `a ${label}`;
}

/**
 * `contentSecretReason` of the file at `path` (a real path), reading at most `CONTENT_HEAD_BYTES`
 * from a synchronous, non-blocking open: null when nothing is there or it is not a regular file
 * (a folder, a FIFO, a device: never waited on). Other failures (EACCES, EIO) are thrown: whether
 * an unreadable file is fine is the caller's business.
 */
export function fileContentSecretReason(path: string): string | null {
  const head = readFileHead(path, CONTENT_HEAD_BYTES);
  return head === null || head.length === 0 ? null : contentSecretReason(head);
}

/**
 * The first `maxBytes` bytes of the regular file at `path`, opened synchronously without blocking;
 * null when nothing is there or it is not a regular file. Other failures are thrown.
 */
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
