// redactSecrets: credentials in any text a tool returns replaced by a marker naming what was removed, by exact value and by shape.
import type { ToolResultBlockParam } from "../types.js";
import { redactAssignments, redactAuthorization, type Mark } from "./secret-assignments.js";
import { AWS_KEY, AWS_TRIGGERS, findPrivateKeys, hasUserinfoCredentials, TOKEN_SHAPES, TOKEN_TRIGGER, userinfoAt } from "./secret-shapes.js";

/** Known values shorter than this are not replaced: every "1234" of a result would go. */
export const MIN_KNOWN_SECRET_LENGTH = 8;

/** Every credential in `text` (`known` values first, longest first, then by shape) replaced by a marker naming it (`[redacted: GitHub token]`). Linear. */
export function redactSecrets(text: string, known: readonly string[] = []): string {
  return scanSecrets(text, known).text;
}

/** As `redactSecrets`, with the label of each credential removed, in order of the passes (empty when none was). */
export function scanSecrets(text: string, known: readonly string[] = []): { text: string; labels: string[] } {
  const labels: string[] = [];
  const mark = (label: string): string => {
    labels.push(label);
    return `[redacted: ${label}]`;
  };
  let out = redactKnown(text, known, mark);
  for (const pass of [redactPrivateKeys, redactUrls, redactTokens, redactAuthorization, redactAssignments]) out = pass(out, mark);
  return { text: out, labels };
}

/** A tool result's content with `redactSecrets` applied to every text it carries (documents and search results too); the same object when nothing changed. */
export function redactContent<T extends ToolResultBlockParam["content"]>(content: T, known: readonly string[] = []): T {
  if (content === undefined) return content;
  if (typeof content === "string") return redactSecrets(content, known) as T;
  const blocks = content.map((block) => redactBlock(block, known));
  return (blocks.some((block, i) => block !== content[i]) ? blocks : content) as T;
}

function redactBlock<B extends Exclude<ToolResultBlockParam["content"], string | undefined>[number]>(block: B, known: readonly string[]): B {
  if (block.type === "text") {
    const text = redactSecrets(block.text, known);
    return text === block.text ? block : { ...block, text };
  }
  if (block.type === "document" && block.source.type === "text") {
    const data = redactSecrets(block.source.data, known);
    return data === block.source.data ? block : { ...block, source: { ...block.source, data } };
  }
  if (block.type !== "search_result") return block;
  const content = redactContent(block.content, known);
  return content === block.content ? block : { ...block, content };
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
      if (userinfo === undefined || !hasUserinfoCredentials(userinfo)) continue;
      done += out.slice(copied, at + separator.length) + mark("URL credentials");
      copied = at + separator.length + userinfo.length;
    }
    if (copied > 0) out = done + out.slice(copied);
  }
  return out;
}

function redactTokens(text: string, mark: Mark): string {
  let out = text;
  for (const { label, triggers, pattern } of TOKEN_TRIGGER.test(text) ? TOKEN_SHAPES : []) if (triggers.some((t) => out.includes(t))) out = out.replace(pattern, () => mark(label));
  if (!AWS_TRIGGERS.some((t) => out.includes(t))) return out;
  return out.replace(AWS_KEY, (_match: string, separator: string | undefined, secret: string | undefined) =>
    secret === undefined ? mark("AWS access key id") : `${mark("AWS access key id")}${separator ?? ""}${mark("AWS secret access key")}`,
  );
}
