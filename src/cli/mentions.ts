// `@path` in a REPL message: the files it names, read (bounded) and attached to the message as context for the model.
import { stat } from "node:fs/promises";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { cutMiddle } from "../content.js";
import { openRegular } from "../fs/regular-file.js";
import { mediaTypeOf, readMedia } from "../tools/media.js";
import type { ContentBlockParam } from "../types.js";

/** Most characters of one attached file the model is given; a longer file keeps its head and tail. */
export const MAX_ATTACHED_CHARS = 20_000;
/** Bytes read of a file at most (a little over what is kept, so the cut note counts what was seen). */
const MAX_READ_BYTES = 4 * MAX_ATTACHED_CHARS;
/** `@path` at the start or after a blank (so `a@b.com` is no mention), or `@"a path with blanks"`. */
const MENTION = /(?<=^|\s)@(?:"([^"\n]+)"|([^\s"]+))/g;
/** Punctuation that ends a sentence rather than a path: `look at @notes.md.` */
const TRAILING = /[.,;:!?)\]}'"]+$/;

/** What the mentions of one message came to: the context to send with it, a line per file for the user. */
export interface Attachments {
  /** For the model, with the message; undefined when nothing was attached. */
  context: string | undefined;
  /** `attached @notes.md (1,234 characters)`, or why a mention was not attached (one line each). */
  lines: string[];
  /** The images and PDFs mentioned, as content blocks for the message. */
  blocks: ContentBlockParam[];
}

/** Reads the files `text` mentions (from `cwd`; `~/` is home), each at most MAX_ATTACHED_CHARS, through `redact`; one that cannot be attached is one line, and the message still goes. */
export async function attachMentions(text: string, opts: { cwd: string; home?: string | undefined; redact: (text: string) => string }): Promise<Attachments> {
  const seen = new Set<string>();
  const parts: string[] = [];
  const lines: string[] = [];
  const blocks: ContentBlockParam[] = [];
  for (const match of text.matchAll(MENTION)) {
    const written = match[1] ?? match[2]!;
    const found = await readMention(written, opts);
    if (seen.has(found.shown)) continue;
    seen.add(found.shown);
    if ("problem" in found) {
      lines.push(`@${found.shown}: ${found.problem} (not attached)`);
      continue;
    }
    if ("block" in found) {
      blocks.push(found.block);
      lines.push(`attached @${found.shown} (${found.block.type === "image" ? "an image" : "a PDF"}, ${Math.ceil(found.size / 1024).toLocaleString("en")} KB)`);
      continue;
    }
    const kept = cutMiddle(found.text, MAX_ATTACHED_CHARS, (cut) => `\n[… ${cut} characters cut here …]\n`);
    const total = `${found.text.length.toLocaleString("en")}${found.truncated ? "+" : ""} characters`;
    const cut = kept.length < found.text.length || found.truncated;
    lines.push(`attached @${found.shown} (${cut ? `cut to ${MAX_ATTACHED_CHARS.toLocaleString("en")} of ${total}` : total})`);
    parts.push(`The user attached @${found.shown} (the file ${found.path}${cut ? `, cut to its first and last parts: ${total}` : ""}):\n${opts.redact(kept)}`);
  }
  return { context: parts.length > 0 ? parts.join("\n\n") : undefined, lines, blocks };
}

type Mention = { shown: string; path: string; text: string; truncated: boolean } | { shown: string; block: ContentBlockParam & { type: "image" | "document" }; size: number } | { shown: string; problem: string };

/** One mention read: as written, else without the punctuation that ended its sentence (`@notes.md,`). */
async function readMention(written: string, opts: { cwd: string; home?: string | undefined }): Promise<Mention> {
  const first = await readText(written, opts);
  const bare = written.replace(TRAILING, "");
  if (!("problem" in first) || bare === written || bare === "") return first;
  // Neither exists: named without the punctuation, as the person meant it.
  return readText(bare, opts);
}

async function readText(written: string, opts: { cwd: string; home?: string | undefined }): Promise<Mention> {
  const path = written === "~" || written.startsWith("~/") ? resolve(opts.home ?? homedir(), written.slice(2)) : resolve(opts.cwd, written);
  let opened: Awaited<ReturnType<typeof openRegular>>;
  try {
    if ((await stat(path)).isDirectory()) return { shown: written, problem: "a folder; name a file in it" };
    opened = await openRegular(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { shown: written, problem: code === "ENOENT" ? `no such file in ${opts.cwd}` : `cannot be read (${(error as Error).message})` };
  }
  try {
    const buffer = Buffer.alloc(Math.min(opened.size, MAX_READ_BYTES));
    const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    const media = mediaTypeOf(bytes);
    if (media) {
      const read = await readMedia(opened.handle, opened.size, media, written);
      return "problem" in read ? { shown: written, problem: read.problem } : { shown: written, block: read.block, size: opened.size };
    }
    if (bytes.includes(0)) return { shown: written, problem: "not a text file (ask the model to read it with read_file)" };
    return { shown: written, path, text: bytes.toString("utf8"), truncated: opened.size > bytesRead };
  } finally {
    await opened.handle.close();
  }
}
