// The shapes credentials take in text: issued tokens by their prefixes, and the userinfo of URLs. One table for redaction, the content check and the environment scrub.

/** A kind of issued credential recognisable by its own text, whatever surrounds it. */
export interface TokenShape {
  /** What the marker says was removed: `[redacted: GitHub token]`. */
  label: string;
  /** Literal pieces one of which every match contains: the cheap test before the pattern runs. */
  triggers: readonly string[];
  /**
   * Global; never starts inside a word. Every repetition has an upper bound (the engine's backtracking
   * stack overflows on a repetition over megabytes), and a scan stays linear.
   */
  pattern: RegExp;
}

// Not preceded by a letter or digit: `ghp_` inside `high_…` or `sk-` inside `task-…` is no token.
const shape = (label: string, triggers: readonly string[], source: string): TokenShape => ({ label, triggers, pattern: new RegExp(`(?<![A-Za-z0-9])(?:${source})`, "g") });

/**
 * Prefixes only issued keys and tokens have, each with the length its issuer gives it (shorter
 * tails are left alone: `sk-ant-` alone, in a regular expression or a doc, is no key).
 */
export const TOKEN_SHAPES: readonly TokenShape[] = [
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
export const TOKEN_TRIGGER = new RegExp(TOKEN_SHAPES.flatMap((s) => s.triggers).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));

/**
 * An AWS access key id (`AKIA…` long-term, `ASIA…` temporary) and, when it follows on the same
 * line within a few separators (a CSV row, `id,secret`), the 40-character secret that goes with it.
 */
export const AWS_KEY = /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Za-z])(?:([ \t,;:|'"=]{1,6})([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=]))?/g;
/** The literal pieces every AWS key id starts with. */
export const AWS_TRIGGERS: readonly string[] = ["AKIA", "ASIA"];

/**
 * The authority after `://`: up to the first `/`, quote, space or backslash. A `?` or `#` should end
 * it too, but passwords holding them are pasted into URLs unencoded, and git and libpq take them
 * so; a query holding an `@` after a host with no path is rare.
 */
const AUTHORITY = /[^\s/"'`<>\\]{1,512}/y;
const SCHEME_CHAR = /[A-Za-z0-9+.-]/;

/**
 * The URL whose `://` (or `separator`: `:\/\/` in JSON that escapes slashes) is at `at` in `text`:
 * where its scheme starts (1–31 characters, from a letter) and its userinfo (the authority up to
 * its last `@`: a raw `@` in a password is common), or null when there is no scheme or no
 * userinfo. Constant work per `://`, so a scan is linear.
 */
export function userinfoAt(text: string, at: number, separator = "://"): { schemeStart: number; userinfo: string } | null {
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

/**
 * The credentials in a URL's userinfo (the part before the authority's last `@`), or null when
 * there are none: no userinfo, a user name alone (`git@`, `user@`), or a placeholder or
 * 1–2 character password (`u:p@`, `user:password@`, `:${PASS}@`). A user name alone counts
 * when it is itself token-shaped.
 */
export function userinfoCredentials(userinfo: string): { user: string; password: string } | null {
  const colon = userinfo.indexOf(":");
  if (colon === -1) return TOKEN_USER.test(userinfo) ? { user: userinfo, password: "" } : null;
  const password = userinfo.slice(colon + 1);
  if (password.length < 3 || PLACEHOLDER.test(password)) return null;
  return { user: userinfo.slice(0, colon), password };
}

/**
 * The user and password of a value that is itself a URL with a password in its userinfo
 * (`postgres://app:pw@db/prod`, `redis://:pw@cache`), placeholders included; null otherwise.
 * What the environment scrub extracts from a secret variable to redact on its own.
 */
export function urlPassword(value: string): { user: string; password: string } | null {
  const at = value.indexOf("://");
  const found = at === -1 ? null : userinfoAt(value, at);
  const colon = found?.userinfo.indexOf(":") ?? -1;
  if (found === null || found.schemeStart !== 0 || colon === -1 || colon === found.userinfo.length - 1) return null;
  return { user: found.userinfo.slice(0, colon), password: found.userinfo.slice(colon + 1) };
}
