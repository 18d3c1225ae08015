// redactSecrets: credentials in any text a tool returns replaced by a marker naming what was removed, by exact value and by shape.
import type { ToolResultBlockParam } from "../types.js";
import { ASSIGNMENT, AUTHORIZATION, acceptAuthorization, acceptValue, keywordLabel, trimEscapes } from "./secret-assignments.js";
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
 * `key=value`, YAML and JSON (key and quotes kept). Linear in the length of `text`; text that
 * holds none of the shapes' literal pieces is returned as it is after one quick look.
 */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  return scanSecrets(text, known).text;
}

/** As `redactSecrets`, with the labels of what was removed (empty when nothing was): for the content check and tests. */
export function scanSecrets(text: string, known: readonly string[] = []): Redaction {
  const labels: string[] = [];
  let out = redactKnown(text, known, labels);
  out = redactPrivateKeys(out, labels);
  out = redactUrls(out, labels);
  out = redactTokens(out, labels);
  out = redactAuthorization(out, labels);
  out = redactAssignments(out, labels);
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

function redactKnown(text: string, known: readonly string[], labels: string[]): string {
  let out = text;
  const values = [...new Set(known)].filter((v) => v.length >= MIN_KNOWN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  for (const value of values) {
    if (!out.includes(value)) continue;
    out = out.split(value).join(redactionMarker("known secret"));
    labels.push("known secret");
  }
  return out;
}

function redactPrivateKeys(text: string, labels: string[]): string {
  const spans = findPrivateKeys(text);
  if (spans.length === 0) return text;
  let out = "";
  let at = 0;
  for (const { start, end } of spans) {
    out += text.slice(at, start) + redactionMarker("private key");
    labels.push("private key");
    at = end;
  }
  return out + text.slice(at);
}

/** Each URL found from its `://` (a literal the scan finds fast; `:\/\/` too, as JSON may escape slashes), the scheme read back from there. */
function redactUrls(text: string, labels: string[]): string {
  let out = text;
  for (const separator of ["://", ":\\/\\/"]) {
    let done = "";
    let copied = 0;
    for (let at = out.indexOf(separator); at !== -1; at = out.indexOf(separator, at + separator.length)) {
      const userinfo = userinfoAt(out, at, separator)?.userinfo;
      if (userinfo === undefined || userinfoCredentials(userinfo) === null) continue;
      labels.push("URL credentials");
      done += out.slice(copied, at + separator.length) + redactionMarker("URL credentials");
      copied = at + separator.length + userinfo.length;
    }
    if (copied > 0) out = done + out.slice(copied);
  }
  return out;
}

function redactTokens(text: string, labels: string[]): string {
  let out = text;
  for (const { label, triggers, pattern } of TOKEN_TRIGGER.test(text) ? TOKEN_SHAPES : []) {
    if (!triggers.some((t) => out.includes(t))) continue;
    out = out.replace(pattern, () => {
      labels.push(label);
      return redactionMarker(label);
    });
  }
  if (!AWS_TRIGGERS.some((t) => out.includes(t))) return out;
  return out.replace(AWS_KEY, (_match: string, separator: string | undefined, secret: string | undefined) => {
    labels.push("AWS access key id");
    if (secret === undefined) return redactionMarker("AWS access key id");
    labels.push("AWS secret access key");
    return `${redactionMarker("AWS access key id")}${separator ?? ""}${redactionMarker("AWS secret access key")}`;
  });
}

function redactAuthorization(text: string, labels: string[]): string {
  if (!/uthorization|UTHORIZATION/.test(text)) return text;
  return text.replace(AUTHORIZATION, (match: string, head: string, scheme: string | undefined, value: string) => {
    if (!acceptAuthorization(scheme, value)) return match;
    labels.push("authorization");
    return `${head}${scheme ?? ""}${redactionMarker("authorization")}`;
  });
}

function redactAssignments(text: string, labels: string[]): string {
  return text.replace(ASSIGNMENT, (match: string, word: string, separator: string, ...rest: unknown[]) => {
    const groups = rest.slice(0, 4) as Array<string | undefined>;
    const offset = rest[4] as number;
    const label = keywordLabel(text, offset, word);
    if (label === null) return match;
    const kind = groups.findIndex((v) => v !== undefined);
    const bare = kind === 3;
    const raw = groups[kind] ?? "";
    const closing = [1, 2, 1, 0][kind] ?? 0;
    const valueStart = offset + match.length - raw.length - closing;
    const keyStart = keyBefore(text, offset);
    const value = bare ? trimEscapes(queryValue(text.charAt(keyStart - 1), raw)) : raw;
    // A window, not a search back to the line's start: that would be quadratic on a text without line breaks.
    const before = text.slice(Math.max(0, keyStart - 16), keyStart);
    const judged = {
      key: text.slice(keyStart, offset + word.length),
      keyQuoted: /["']/.test(text.charAt(keyStart - 1)) && /^\\?["']/.test(separator),
      separator,
      value,
      quoted: !bare,
      lineStart: /(?:^|\n)(?:export[ \t]+)?$/.test(before),
      rest: restOfLine(text, valueStart + raw.length + closing),
    };
    if (!acceptValue(judged)) return match;
    labels.push(label);
    const cut = valueStart - offset;
    return match.slice(0, cut) + redactionMarker(label) + match.slice(cut + value.length);
  });
}

/** The text from `at` to the end of its line, at most 200 characters (a scan to a far line end, per match, would be quadratic). */
function restOfLine(text: string, at: number): string {
  const window = text.slice(at, at + 200);
  const end = window.indexOf("\n");
  return end === -1 ? window : window.slice(0, end);
}

/** Where the key that ends with the keyword starting at `at` starts (`spring.datasource.` of `spring.datasource.password`), at most 64 characters back. */
function keyBefore(text: string, at: number): number {
  let start = at;
  while (start > 0 && at - start < 64 && /[A-Za-z0-9_.-]/.test(text.charAt(start - 1))) start--;
  return start;
}

/** In a query string (`?token=abc&next=1`) a bare value ends at `&` or `#`. */
function queryValue(before: string, value: string): string {
  return before === "?" || before === "&" || before === ";" ? (value.split(/[&#]/, 1)[0] ?? value) : value;
}
