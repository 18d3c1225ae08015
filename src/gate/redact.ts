// redactSecrets: credentials in any text a tool returns replaced by a marker naming what was removed, by exact value and by shape.
import type { ToolResultBlockParam } from "../types.js";
import { redactAssignments, redactAuthorization } from "./secret-assignments.js";
import type { Mark } from "./secret-assignments.js";
import { AWS_KEY, AWS_TRIGGERS, TOKEN_SHAPES, TOKEN_TRIGGER, userinfoAt, userinfoCredentials } from "./secret-shapes.js";
import { findPrivateKeys } from "./private-keys.js";

/** Known values shorter than this are not replaced: every "1234" of a result would go. */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/** The text that stands where a credential was: `[redacted: GitHub token]`. */
export function redactionMarker(label: string): string {
  return `[redacted: ${label}]`;
}

/** What a scan found: the text with markers, and the label of each credential removed, in order of the passes. */
export interface Redaction {
  text: string;
  labels: string[];
}

/**
 * `text` with every credential replaced by a marker naming it: the `known` values first (exact,
 * longest first, as `[redacted: known secret]`; each of 8+ characters), then private-key blocks,
 * URL userinfo (`https://[redacted: URL credentials]@github.com/o/r.git`), issued tokens by their
 * prefixes (Anthropic, OpenAI, GitHub, GitLab, Slack, AWS with its secret, Google, JWTs...),
 * `Authorization:` values (the scheme kept), and the values of secret-named keys in
 * `key=value`, YAML and JSON (key and quotes kept). Linear in the length of `text`; each pass
 * first looks for the literal pieces its shapes need, so text without them costs a few scans.
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  return scanSecrets(text, known).text;
}

/** As `redactSecrets`, with the labels of what was removed (empty when nothing was): for the content check and tests. */
export function scanSecrets(text: string, known: readonly string[] = []): Redaction {
  const labels: string[] = [];
  const mark = (label: string): string => {
    labels.push(label);
    return redactionMarker(label);
  };
  let out = redactKnown(text, known, mark);
  out = redactPrivateKeys(out, mark);
  out = redactUrls(out, mark);
  out = redactTokens(out, mark);
  out = redactAuthorization(out, mark);
  out = redactAssignments(out, mark);
  return { text: out, labels };
}

/** Content blocks as a tool result carries them: text is redacted, images and other blocks pass as they are. */
export type RedactableContent = ToolResultBlockParam["content"];

/**
 * A tool result's content with `redactSecrets` applied to every text it carries: a string, text
 * blocks, text documents and the text of search results; images and other blocks untouched.
 * Returns the same object when nothing changed. For the dispatcher, on every result before it
 * reaches the model, the session or the terminal.
 */
export function redactContent<T extends RedactableContent>(content: T, known: readonly string[] = []): T {
  if (content === undefined) return content;
  if (typeof content === "string") return redactSecrets(content, known) as T;
  let changed = false;
  const blocks = content.map((block) => {
    const next = redactBlock(block, known);
    changed ||= next !== block;
    return next;
  });
  return (changed ? blocks : content) as T;
}

type Block = Exclude<RedactableContent, string | undefined>[number];

function redactBlock<B extends Block>(block: B, known: readonly string[]): B {
  const clean = (text: string): string => redactSecrets(text, known);
  if (block.type === "text") return sameOr(block, block.text, clean(block.text), (text) => ({ ...block, text }));
  if (block.type === "document" && block.source.type === "text") {
    const { source } = block;
    return sameOr(block, source.data, clean(source.data), (data) => ({ ...block, source: { ...source, data } }));
  }
  if (block.type === "search_result") {
    const content = redactContent(block.content, known);
    return content === block.content ? block : { ...block, content };
  }
  return block;
}

function sameOr<B>(block: B, before: string, after: string, rebuild: (text: string) => B): B {
  return after === before ? block : rebuild(after);
}

function redactKnown(text: string, known: readonly string[], mark: Mark): string {
  let out = text;
  const values = [...new Set(known)].filter((v) => v.length >= MIN_KNOWN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  for (const value of values) if (out.includes(value)) out = out.split(value).join(mark("known secret"));
  return out;
}

function redactPrivateKeys(text: string, mark: Mark): string {
  let out = "";
  let at = 0;
  for (const { start, end } of findPrivateKeys(text)) {
    out += text.slice(at, start) + mark("private key");
    at = end;
  }
  return at === 0 ? text : out + text.slice(at);
}

/** Each URL found from its `://` (a literal the scan finds fast; `:\/\/` too, as JSON may escape slashes), the scheme read back from there. */
function redactUrls(text: string, mark: Mark): string {
  let out = text;
  for (const separator of ["://", ":\\/\\/"]) {
    let done = "";
    let copied = 0;
    for (let at = out.indexOf(separator); at !== -1; at = out.indexOf(separator, at + separator.length)) {
      const userinfo = userinfoAt(out, at, separator)?.userinfo;
      if (userinfo === undefined || userinfoCredentials(userinfo) === null) continue;
      done += out.slice(copied, at + separator.length) + mark("URL credentials");
      copied = at + separator.length + userinfo.length;
    }
    if (copied > 0) out = done + out.slice(copied);
  }
  return out;
}

function redactTokens(text: string, mark: Mark): string {
  let out = text;
  for (const { label, triggers, pattern } of TOKEN_TRIGGER.test(text) ? TOKEN_SHAPES : []) {
    if (triggers.some((t) => out.includes(t))) out = out.replace(pattern, () => mark(label));
  }
  if (!AWS_TRIGGERS.some((t) => out.includes(t))) return out;
  return out.replace(AWS_KEY, (_match: string, separator: string | undefined, secret: string | undefined) =>
    secret === undefined ? mark("AWS access key id") : `${mark("AWS access key id")}${separator ?? ""}${mark("AWS secret access key")}`,
  );
}
