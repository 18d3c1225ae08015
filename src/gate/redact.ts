// redactSecrets: credentials in any text a tool returns replaced by a marker naming them, by exact value and by shape (the table of shapes is here).
import type { ToolResultBlockParam } from "../types.js";
import { redactAssignments, redactAuthorization, type Mark } from "./secret-assignments.js";

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

/**
 * An issued credential known by its text: `triggers` are literals every match holds (the cheap test first); the pattern never starts inside a word
 * (`ghp_` in `high_…`) and bounds every repetition (one over megabytes overflows the engine's stack), so a scan stays linear.
 */
const shape = (label: string, triggers: readonly string[], source: string) => ({ label, triggers, pattern: new RegExp(`(?<![A-Za-z0-9])(?:${source})`, "g") });

/** Prefixes only issued keys and tokens have, each with the length its issuer gives it (`sk-ant-` alone, in a doc, is no key). */
const TOKEN_SHAPES: ReadonlyArray<ReturnType<typeof shape>> = [
  shape("Anthropic API key", ["sk-ant-"], "sk-ant-[A-Za-z0-9_-]{20,512}"),
  shape("OpenAI API key", ["sk-"], "sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,512}|sk-[A-Za-z0-9]{32,512}"),
  shape("GitHub token", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"], "gh[pousr]_[A-Za-z0-9]{30,512}|github_pat_[A-Za-z0-9_]{30,512}"),
  shape("GitLab token", ["glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glcbt-", "gloas-", "glsoat-"], "gl(?:pat|dt|rt|ptt|ft|cbt|oas|soat)-[A-Za-z0-9_-]{20,512}"),
  shape("Slack token", ["xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-"], "xox[abeoprs]-[A-Za-z0-9-]{10,512}|xapp-[0-9]-[A-Za-z0-9-]{10,512}"),
  shape("Slack webhook", ["hooks.slack.com"], "https://hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{5,512}"),
  shape("Stripe key", ["_live_", "_test_", "whsec_"], "[sr]k_(?:live|test)_[A-Za-z0-9]{10,512}|whsec_[A-Za-z0-9]{20,512}"),
  shape("npm token", ["npm_"], "npm_[A-Za-z0-9]{30,512}"),
  shape("Hugging Face token", ["hf_"], "hf_[A-Za-z0-9]{30,512}"),
  shape("Google API key", ["AIza"], "AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
  shape("Google OAuth token", ["ya29.", "GOCSPX-"], "ya29\\.[0-9A-Za-z_-]{20,512}|GOCSPX-[0-9A-Za-z_-]{20,512}"),
  shape("JWT", ["eyJ"], "eyJ[A-Za-z0-9_-]{5,8192}\\.eyJ[A-Za-z0-9_-]{5,8192}\\.[A-Za-z0-9_-]{0,8192}"),
];

/** Every literal piece of every token shape: one scan for these tells whether any shape can match. */
const TOKEN_TRIGGER = new RegExp(TOKEN_SHAPES.flatMap((s) => s.triggers).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));
/** An AWS access key id (`AKIA…`, `ASIA…`) and, when it follows on the same line within a few separators (`id,secret`), its 40-character secret. */
const AWS_KEY = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])(?:([ \t,;:|'"=]{1,6})([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=]))?/g;
const AWS_TRIGGERS: readonly string[] = ["AKIA", "ASIA"];
/** The authority after `://`: up to the first `/`, quote, space or backslash (not `?` or `#`: git and libpq take passwords holding them unencoded). */
const AUTHORITY = /[^\s/"'`<>\\]{1,512}/y;
const SCHEME_CHAR = /[A-Za-z0-9+.-]/;

/** The URL whose `://` (or `separator`: `:\/\/` in JSON) is at `at`: where its scheme starts, and its userinfo (up to the authority's last `@`); null without either. */
function userinfoAt(text: string, at: number, separator = "://"): { schemeStart: number; userinfo: string } | null {
  let start = at;
  while (start > 0 && at - start < 31 && SCHEME_CHAR.test(text.charAt(start - 1))) start--;
  while (start < at && !/[A-Za-z]/.test(text.charAt(start))) start++;
  if (start === at) return null;
  AUTHORITY.lastIndex = at + separator.length;
  const authority = AUTHORITY.exec(text)?.[0] ?? "";
  const end = authority.lastIndexOf("@");
  return end <= 0 ? null : { schemeStart: start, userinfo: authority.slice(0, end) };
}

/** Passwords that say they are placeholders, not secrets: `user:password@`, `:pass@`, `<password>`, `${PASS}`, `***`. */
const PLACEHOLDER = /^(?:pass(?:word|wd)?|secret|pwd|changeme|token|x+|\*+|\.+|\u2026)$|^[<{$%[]/i;
/** A user name alone that is a token (`https://ghp_…@github.com`, a Sentry DSN's key): long, with a digit, of token characters. */
const TOKEN_USER = /^(?=.*[0-9])[A-Za-z0-9_-]{16,512}$/;

/** Whether a URL's userinfo holds credentials: a password of 3+ characters that is no placeholder, or a token-shaped user name alone. */
function hasUserinfoCredentials(userinfo: string): boolean {
  const colon = userinfo.indexOf(":");
  if (colon === -1) return TOKEN_USER.test(userinfo);
  const password = userinfo.slice(colon + 1);
  return password.length >= 3 && !PLACEHOLDER.test(password);
}

/** The user and password of a value that is itself a URL with a password (`postgres://app:pw@db/prod`), placeholders included; null otherwise. */
export function urlPassword(value: string): { user: string; password: string } | null {
  const at = value.indexOf("://");
  const found = at === -1 ? null : userinfoAt(value, at);
  const colon = found?.userinfo.indexOf(":") ?? -1;
  if (found === null || found.schemeStart !== 0 || colon === -1 || colon === found.userinfo.length - 1) return null;
  return { user: found.userinfo.slice(0, colon), password: found.userinfo.slice(colon + 1) };
}

const KEY_HEADER = /-----BEGIN ((?:[A-Z0-9]+ ){0,4})PRIVATE KEY(?: BLOCK)?-----/g;
/** One line of a key's body, taken one at a time (a repetition over megabytes would exhaust the engine's stack): a line break (real, escaped, or spaces), then base64 or an RFC 1421 header. */
const KEY_BODY_LINE = /(?:\r?\n|\\r\\n|\\n|[ \t]+)[ \t]*(?:[A-Za-z][A-Za-z0-9-]{0,29}: [^\r\n\\]{0,200}|[A-Za-z0-9+/=]{1,65536})?/y;
const KEY_FOOTER = /[ \t]*(?:\r?\n|\\r\\n|\\n)?[ \t]*-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----/y;
/** Key lines are 64 or 70 characters; prose after a header that is only quoted never has a 40-character base64 run. */
const KEY_LINE = /[A-Za-z0-9+/=]{40}/;

/** The private keys (PEM and PGP) in `text`, in order: each header with its body and footer, when the body holds a 40-character base64 run (docs quoting a header do not). */
function findPrivateKeys(text: string): Array<{ start: number; end: number }> {
  if (!text.includes("PRIVATE KEY")) return [];
  const spans: Array<{ start: number; end: number }> = [];
  KEY_HEADER.lastIndex = 0;
  for (let header = KEY_HEADER.exec(text); header !== null; header = KEY_HEADER.exec(text)) {
    const bodyEnd = keyBodyEnd(text, KEY_HEADER.lastIndex);
    if (!KEY_LINE.test(text.slice(KEY_HEADER.lastIndex, bodyEnd))) continue;
    KEY_FOOTER.lastIndex = bodyEnd;
    const end = KEY_FOOTER.test(text) ? KEY_FOOTER.lastIndex : bodyEnd;
    spans.push({ start: header.index, end });
    KEY_HEADER.lastIndex = end;
  }
  return spans;
}

/** Where the body that starts at `at` ends: after the last line `KEY_BODY_LINE` takes. Each line moves forward: linear. */
function keyBodyEnd(text: string, at: number): number {
  for (let end = at; ; end = KEY_BODY_LINE.lastIndex) {
    KEY_BODY_LINE.lastIndex = end;
    if (KEY_BODY_LINE.exec(text) === null || KEY_BODY_LINE.lastIndex === end) return end;
  }
}
